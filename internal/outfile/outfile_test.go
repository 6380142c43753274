package outfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.html")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half")
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("while writing, %s holds %q", p, b)
	}
	f.Abort()
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("after Abort, %s holds %q", p, b)
	}
	if err := Write(p, []byte("new")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(b) != "new" || fi.Mode().Perm() != 0o644 {
		t.Errorf("%s: %q, mode %v", p, b, fi.Mode())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]string{
		filepath.Join(dir, "no", "such", "dir.html"): "no such file",
		dir: "is a directory",
		"":  "no file name",
	} {
		if err := Check(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%q) = %v, want %q", path, err, want)
		}
	}
	if err := Check(filepath.Join(dir, "ok.txt")); err != nil {
		t.Errorf("Check of a new file in a writable directory: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Check left %v", ents)
	}
}

// A link of one's own is followed; its target gets the file.
func TestOwnLinkFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "real.txt")
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "x" {
		t.Errorf("target: %q, %v", b, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link itself was replaced")
	}
}

// As root, a link another user planted is not followed: the file it
// points at keeps its bytes.
func TestForeignLinkRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a link owned by another user")
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("root's"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report.html")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	err := Write(link, []byte("overwritten"))
	if err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Errorf("Write through nobody's link: %v", err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "root's" {
		t.Errorf("the link's target was overwritten: %q", b)
	}
	var st syscall.Stat_t
	syscall.Lstat(link, &st)
	if st.Uid != 65534 {
		t.Errorf("link owner %d", st.Uid)
	}
}
