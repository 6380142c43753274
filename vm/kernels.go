// Package vm runs workloads on real kernels in a virtual machine: Debian's
// packaged kernels (fetched with apt into a cache, never installed) or a
// user's own image, booted under QEMU with an initramfs whose init is
// schedlab itself. The guest runs the host runner (package host) and sends
// its recording back over a serial port of its own, so that a VM run is one
// more producer of a host.Recording, analysed as a host run is.
//
// The launcher (kernels, initramfs, qemu) is pure Go; the guest side needs
// the host runner, which needs cgo.
package vm

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// suite is a Debian suite: a codename and a suffix ("", "-updates",
// "-security", "-backports").
type suite struct{ codename, suffix string }

func (s suite) name() string { return s.codename + s.suffix }

// Named is a kernel schedlab knows by name: the newest cloud-flavoured
// image (linux-image-cloud-amd64, the smallest and fastest to boot: its
// serial console and virtio drivers are built in) of a Debian suite.
type Named struct {
	Name   string
	Suites []suite
	// Sched is the fair class of that kernel generation.
	Sched string
	About string
}

// Catalog is the named kernels, oldest first.
var Catalog = []Named{
	{Name: "debian-5.10", Sched: "CFS", About: "Debian 11 bullseye (LTS)",
		Suites: []suite{{"bullseye", ""}, {"bullseye", "-updates"}, {"bullseye", "-security"}}},
	{Name: "debian-6.1", Sched: "CFS", About: "Debian 12 bookworm, the last CFS",
		Suites: []suite{{"bookworm", ""}, {"bookworm", "-updates"}, {"bookworm", "-security"}}},
	{Name: "debian-6.12", Sched: "EEVDF", About: "Debian 12 bookworm-backports",
		Suites: []suite{{"bookworm", "-backports"}}},
	{Name: "debian-unstable", Sched: "EEVDF", About: "Debian unstable's newest kernel (also: newest)",
		Suites: []suite{{"unstable", ""}}},
}

// aliases are other names of catalog entries.
var aliases = map[string]string{"newest": "debian-unstable"}

func lookup(name string) (*Named, bool) {
	if a, ok := aliases[name]; ok {
		name = a
	}
	for i := range Catalog {
		if Catalog[i].Name == name {
			return &Catalog[i], true
		}
	}
	return nil, false
}

// Names lists the catalog's names.
func Names() []string {
	var n []string
	for _, k := range Catalog {
		n = append(n, k.Name)
	}
	return n
}

// Kernel is a bootable kernel image.
type Kernel struct {
	// Name is the catalog name, or the path a user gave.
	Name string `json:"name"`
	// Image is the bzImage/vmlinuz file.
	Image string `json:"image"`
	// Release is the kernel's uname -r (from the image's header).
	Release string `json:"release"`
	// Package and Version are the Debian package it came from.
	Package string    `json:"package,omitempty"`
	Version string    `json:"version,omitempty"`
	Fetched time.Time `json:"fetched,omitzero"`
}

// Sched says which fair class the kernel has by its version: EEVDF
// replaced CFS in 6.6.
func (k *Kernel) Sched() string {
	return schedOf(k.Release)
}

// Config is the value of a kernel configuration option (CONFIG_HZ, say)
// from the config-RELEASE file beside the image, as Debian ships it ("" if
// there is no such file or option; "y", "m" or the value otherwise).
func (k *Kernel) Config(option string) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(k.Image), "config-"+k.Release))
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, option+"="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

func schedOf(release string) string {
	m := regexp.MustCompile(`^(\d+)\.(\d+)`).FindStringSubmatch(release)
	if m == nil {
		return "unknown"
	}
	maj, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	if maj > 6 || maj == 6 && minor >= 6 {
		return "EEVDF"
	}
	return "CFS"
}

// CacheDir is where fetched kernels are kept: the user's cache directory
// (os.UserCacheDir), schedlab/kernels.
func CacheDir() (string, error) {
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for kernels: %w", err)
	}
	return filepath.Join(d, "schedlab", "kernels"), nil
}

// InputError is a kernel the user named that cannot be had: an unknown
// name, a file that is not a kernel image.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// NotFetchedError is a named kernel that is not in the cache.
type NotFetchedError struct{ Name string }

func (e *NotFetchedError) Error() string {
	return fmt.Sprintf("kernel %s is not fetched: run `schedlab kernels fetch %s` first", e.Name, e.Name)
}

// Cached returns the cached kernel of a catalog name, or a
// *NotFetchedError.
func Cached(name string) (*Kernel, error) {
	n, ok := lookup(name)
	if !ok {
		return nil, unknownKernel(name)
	}
	dir, err := CacheDir()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, n.Name, "kernel.json"))
	if err != nil {
		return nil, &NotFetchedError{Name: n.Name}
	}
	var k Kernel
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("kernel %s: the cache's kernel.json is unreadable (%v): fetch it again", n.Name, err)
	}
	k.Image = filepath.Join(dir, n.Name, k.Image)
	if _, err := os.Stat(k.Image); err != nil {
		return nil, &NotFetchedError{Name: n.Name}
	}
	return &k, nil
}

func unknownKernel(name string) error {
	return &InputError{Msg: fmt.Sprintf("no kernel named %q and no such file (named kernels: %s, newest; or the path of a bzImage/vmlinuz)", name, strings.Join(Names(), ", "))}
}

// Resolve finds the kernel a user named: a path to an image (anything
// with a slash, or an existing file), else a catalog name, which must be
// fetched.
func Resolve(arg string) (*Kernel, error) {
	if fi, err := os.Stat(arg); err == nil || strings.ContainsRune(arg, '/') {
		if err != nil {
			return nil, &InputError{Msg: fmt.Sprintf("kernel %s: %v", arg, err)}
		}
		if fi.IsDir() {
			return nil, &InputError{Msg: fmt.Sprintf("kernel %s is a directory, not a kernel image", arg)}
		}
		rel, err := ImageRelease(arg)
		if err != nil {
			return nil, &InputError{Msg: fmt.Sprintf("kernel %s: %v", arg, err)}
		}
		abs, _ := filepath.Abs(arg)
		return &Kernel{Name: arg, Image: abs, Release: rel}, nil
	}
	return Cached(arg)
}

// ImageRelease reads the kernel release from an x86 boot image's setup
// header (Documentation/arch/x86/boot.rst: "HdrS" at 0x202, the version
// string's offset from 0x200 at 0x20e). It also tells a kernel image from
// any other file.
func ImageRelease(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	hdr := make([]byte, 0x210)
	if _, err := io.ReadFull(f, hdr); err != nil || string(hdr[0x202:0x206]) != "HdrS" {
		return "", errors.New("not an x86 kernel image (no bzImage setup header)")
	}
	off := int64(binary.LittleEndian.Uint16(hdr[0x20e:])) + 0x200
	buf := make([]byte, 256)
	n, _ := f.ReadAt(buf, off)
	s := string(buf[:n])
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	rel, _, _ := strings.Cut(s, " ")
	if rel == "" {
		return "", errors.New("the image's header has no version string")
	}
	return rel, nil
}

// Entry is one line of `kernels list`.
type Entry struct {
	Named
	Kernel *Kernel // nil: not fetched
}

// List is the catalog with what is cached.
func List() []Entry {
	var out []Entry
	for _, n := range Catalog {
		e := Entry{Named: n}
		if k, err := Cached(n.Name); err == nil {
			e.Kernel = k
		}
		out = append(out, e)
	}
	return out
}

// Fetch downloads a named kernel's newest cloud image with apt and
// extracts its vmlinuz into the cache (dpkg-deb -x; nothing is installed),
// replacing an older one. log receives progress.
func Fetch(name string, log io.Writer) (*Kernel, error) {
	n, ok := lookup(name)
	if !ok {
		return nil, unknownKernel(name)
	}
	for _, tool := range []string{"apt-get", "apt-cache", "dpkg-deb"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("fetching kernels needs %s (Debian's apt and dpkg): %v", tool, err)
		}
	}
	root, err := CacheDir()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(root, n.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// One fetch per kernel at a time (a test and CI's setup may race).
	lock, err := os.OpenFile(filepath.Join(root, n.Name+".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return nil, err
	}

	codename, err := machineCodename()
	if err != nil {
		return nil, err
	}
	machine, err := machineSources()
	if err != nil {
		return nil, err
	}
	sources, err := derivedSources(machine, codename, n.Suites)
	if err != nil {
		return nil, err
	}
	apt := privateApt{dir: filepath.Join(dir, "apt")}
	if err := apt.setup(sources); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "schedlab: %s: apt-get update of %s (private lists in %s)\n", n.Name, suiteNames(n.Suites), apt.dir)
	if _, err := apt.run(dir, "apt-get", "update", "-q"); err != nil {
		return nil, err
	}
	// The meta package names the image; since 7.x the image package is
	// empty and names a linux-binary package, which holds the vmlinuz.
	pkgs, version, err := imagePackages(apt, dir, "linux-image-cloud-amd64")
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(dir, "fetch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	fmt.Fprintf(log, "schedlab: %s: apt-get download %s\n", n.Name, strings.Join(pkgs, " "))
	if _, err := apt.run(work, "apt-get", append([]string{"download", "-q"}, pkgs...)...); err != nil {
		return nil, err
	}
	debs, _ := filepath.Glob(filepath.Join(work, "*.deb"))
	tree := filepath.Join(work, "tree")
	for _, d := range debs {
		if out, err := exec.Command("dpkg-deb", "-x", d, tree).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("dpkg-deb -x %s: %v: %s", filepath.Base(d), err, out)
		}
	}
	image := findImage(tree)
	if image == "" {
		return nil, fmt.Errorf("%s: no vmlinuz in %s", n.Name, strings.Join(pkgs, ", "))
	}
	rel, err := ImageRelease(image)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %v", n.Name, image, err)
	}
	k := &Kernel{Name: n.Name, Image: "vmlinuz-" + rel, Release: rel, Package: pkgs[len(pkgs)-1], Version: version, Fetched: time.Now().UTC().Truncate(time.Second)}
	if err := os.Rename(image, filepath.Join(dir, k.Image)); err != nil {
		return nil, err
	}
	// The kernel's config says what it was built with (the features a
	// guest can have); it sits beside the image.
	if cfgs, _ := filepath.Glob(filepath.Join(tree, "boot", "config-*")); len(cfgs) > 0 {
		os.Rename(cfgs[0], filepath.Join(dir, "config-"+rel))
	}
	b, _ := json.MarshalIndent(k, "", "  ")
	tmp := filepath.Join(dir, "kernel.json.tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, "kernel.json")); err != nil {
		return nil, err
	}
	// Older images of this name go; the downloaded packages went with work.
	olds, _ := filepath.Glob(filepath.Join(dir, "vmlinuz-*"))
	for _, o := range olds {
		if filepath.Base(o) != k.Image {
			os.Remove(o)
			os.Remove(filepath.Join(dir, "config-"+strings.TrimPrefix(filepath.Base(o), "vmlinuz-")))
		}
	}
	os.RemoveAll(filepath.Join(apt.dir, "cache", "archives"))
	fmt.Fprintf(log, "schedlab: %s: Linux %s (%s %s) in %s\n", n.Name, rel, k.Package, version, dir)
	k.Image = filepath.Join(dir, k.Image)
	return k, nil
}

func suiteNames(ss []suite) string {
	var n []string
	for _, s := range ss {
		n = append(n, s.name())
	}
	return strings.Join(n, ", ")
}

// imagePackages follows a meta package's dependencies to the packages
// that hold the kernel image: linux-image-* and linux-binary-*. version is
// the meta package's.
func imagePackages(apt privateApt, dir, meta string) (pkgs []string, version string, err error) {
	out, err := apt.run(dir, "apt-cache", "show", "--no-all-versions", meta)
	if err != nil {
		return nil, "", err
	}
	r := parseRecord(out)
	version = r["Version"]
	queue := depends(r["Depends"])
	seen := map[string]bool{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if seen[p] || !(strings.HasPrefix(p, "linux-image-") || strings.HasPrefix(p, "linux-binary-")) {
			continue
		}
		seen[p] = true
		pkgs = append(pkgs, p)
		out, err := apt.run(dir, "apt-cache", "show", "--no-all-versions", p)
		if err != nil {
			return nil, "", err
		}
		queue = append(queue, depends(parseRecord(out)["Depends"])...)
	}
	if len(pkgs) == 0 {
		return nil, "", fmt.Errorf("%s %s depends on no linux-image package (Depends: %s)", meta, version, r["Depends"])
	}
	return pkgs, version, nil
}

// findImage finds the vmlinuz in an extracted package tree: boot/ until
// 6.x, usr/lib/modules/*/ since.
func findImage(tree string) string {
	for _, pat := range []string{"boot/vmlinuz-*", "usr/lib/modules/*/vmlinuz", "lib/modules/*/vmlinuz"} {
		if m, _ := filepath.Glob(filepath.Join(tree, pat)); len(m) > 0 {
			return m[0]
		}
	}
	return ""
}
