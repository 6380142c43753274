package vm

import (
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// cpioWriter writes the "newc" cpio format the kernel unpacks into its
// initial rootfs (Documentation/driver-api/early-userspace/buffer-format.rst):
// a 110-byte ASCII header per entry, the name, the data, each padded to 4
// bytes, and a TRAILER!!! entry. Ownership is root's and device nodes are
// just numbers in a header, so building it needs no privilege.
type cpioWriter struct {
	w    io.Writer
	ino  int
	dirs map[string]bool
	err  error
}

func newCpio(w io.Writer) *cpioWriter { return &cpioWriter{w: w, ino: 1, dirs: map[string]bool{}} }

const (
	sIFDIR = 0o040000
	sIFREG = 0o100000
	sIFCHR = 0o020000
	sIFLNK = 0o120000
)

func (c *cpioWriter) entry(name string, mode uint32, data []byte, major, minor int) {
	if c.err != nil {
		return
	}
	c.ino++
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		c.ino, mode, 0, 0, 1, 0, len(data), 0, 0, major, minor, len(name)+1, 0)
	var b bytes.Buffer
	b.WriteString(hdr)
	b.WriteString(name)
	b.WriteByte(0)
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
	if _, c.err = c.w.Write(b.Bytes()); c.err != nil {
		return
	}
	if _, c.err = c.w.Write(data); c.err != nil {
		return
	}
	if pad := (4 - len(data)%4) % 4; pad > 0 {
		_, c.err = c.w.Write(make([]byte, pad))
	}
}

// mkdirAll adds name's directories, parents first, once each.
func (c *cpioWriter) mkdirAll(name string) {
	if name == "." || name == "/" || name == "" || c.dirs[name] {
		return
	}
	c.mkdirAll(path.Dir(name))
	c.dirs[name] = true
	c.entry(name, sIFDIR|0o755, nil, 0, 0)
}

func (c *cpioWriter) file(name string, mode uint32, data []byte) {
	c.mkdirAll(path.Dir(name))
	c.entry(name, sIFREG|mode, data, 0, 0)
}

func (c *cpioWriter) symlink(name, target string) {
	c.mkdirAll(path.Dir(name))
	c.entry(name, sIFLNK|0o777, []byte(target), 0, 0)
}

func (c *cpioWriter) chardev(name string, mode uint32, major, minor int) {
	c.mkdirAll(path.Dir(name))
	c.entry(name, sIFCHR|mode, nil, major, minor)
}

func (c *cpioWriter) close() error {
	c.entry("TRAILER!!!", 0, nil, 0, 0)
	return c.err
}

// requestPath is where the guest finds its request in the initramfs; its
// presence, with PID 1, is what makes schedlab run as the guest's init.
const requestPath = "/schedlab-guest.json"

// buildInitramfs writes an initramfs whose /init is the binary at exe,
// with the shared libraries it needs (as ldd finds them, at the same
// paths), the guest's request, and extra programs (guest path → machine
// file, each with its libraries).
func buildInitramfs(w io.Writer, exe string, request []byte, extra map[string]string) error {
	bin, err := os.ReadFile(exe)
	if err != nil {
		return fmt.Errorf("reading the guest's init %s: %w", exe, err)
	}
	libs, err := sharedLibs(exe)
	if err != nil {
		return err
	}
	for _, src := range extra {
		l, err := sharedLibs(src)
		if err != nil {
			return err
		}
		for _, x := range l {
			if !slices.Contains(libs, x) {
				libs = append(libs, x)
			}
		}
	}
	slices.Sort(libs)
	c := newCpio(w)
	for _, d := range []string{"dev", "proc", "sys", "tmp", "run", "etc"} {
		c.mkdirAll(d)
	}
	// The kernel opens /dev/console for init's standard streams before
	// devtmpfs is mounted.
	c.chardev("dev/console", 0o600, 5, 1)
	c.chardev("dev/null", 0o666, 1, 3)
	c.file("init", 0o755, bin)
	for _, l := range libs {
		data, err := os.ReadFile(l)
		if err != nil {
			return fmt.Errorf("reading %s for the initramfs: %w", l, err)
		}
		c.file(strings.TrimPrefix(l, "/"), 0o755, data)
	}
	for _, dst := range slices.Sorted(maps.Keys(extra)) {
		data, err := os.ReadFile(extra[dst])
		if err != nil {
			return fmt.Errorf("reading %s for the initramfs: %w", extra[dst], err)
		}
		c.file(strings.TrimPrefix(dst, "/"), 0o755, data)
	}
	c.file(strings.TrimPrefix(requestPath, "/"), 0o644, request)
	return c.close()
}

// sharedLibs lists the files a dynamic executable loads (its interpreter
// and libraries), from ldd; none for a static one.
func sharedLibs(exe string) ([]string, error) {
	if _, err := exec.LookPath("ldd"); err != nil {
		if isStatic(exe) {
			return nil, nil
		}
		return nil, fmt.Errorf("the guest's init %s is dynamically linked, and ldd, which finds its libraries, is missing: %v", exe, err)
	}
	out, err := exec.Command("ldd", exe).CombinedOutput()
	if err != nil {
		if isStatic(exe) {
			return nil, nil
		}
		return nil, fmt.Errorf("ldd %s: %v: %s", exe, err, out)
	}
	return parseLdd(string(out))
}

var lddLine = regexp.MustCompile(`^\s*(?:\S+\s+=>\s+)?(/\S+)\s+\(0x[0-9a-f]+\)`)

func parseLdd(out string) ([]string, error) {
	var libs []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "not found") {
			return nil, fmt.Errorf("ldd: %s", strings.TrimSpace(line))
		}
		if m := lddLine.FindStringSubmatch(line); m != nil && !slices.Contains(libs, m[1]) {
			libs = append(libs, filepath.Clean(m[1]))
		}
	}
	return libs, nil
}

// isStatic says whether exe is an ELF file without a program
// interpreter, which needs no libraries.
func isStatic(exe string) bool {
	f, err := elf.Open(exe)
	if err != nil {
		return false
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return false
		}
	}
	return true
}
