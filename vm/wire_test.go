package vm

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

// Frames survive noise before them (a port's bytes before init opened
// it), and a damaged or cut frame is an error, never a wrong recording.
func TestFrames(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("\x00garbage line\r\n")
	fw := &frameWriter{w: &b}
	fw.send(kindHello, []byte("6.1.0"))
	fw.send(kindTrace, []byte("line 1\nline 2\n"))
	fw.send(kindDone, nil)
	r := bufio.NewReader(bytes.NewReader(b.Bytes()))
	for _, want := range []struct{ kind, payload string }{{kindHello, "6.1.0"}, {kindTrace, "line 1\nline 2\n"}, {kindDone, ""}} {
		k, p, err := readFrame(r)
		if err != nil || k != want.kind || string(p) != want.payload {
			t.Fatalf("got %q %q %v, want %q %q", k, p, err, want.kind, want.payload)
		}
	}
	damaged := bytes.Replace(b.Bytes(), []byte("line 2"), []byte("line 3"), 1)
	r = bufio.NewReader(bytes.NewReader(damaged))
	readFrame(r)
	if _, _, err := readFrame(r); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("damaged frame: %v", err)
	}
	r = bufio.NewReader(bytes.NewReader(b.Bytes()[:b.Len()-30]))
	readFrame(r)
	if _, _, err := readFrame(r); err == nil || !strings.Contains(err.Error(), "cut short") {
		t.Errorf("cut frame: %v", err)
	}
}

// The initramfs is newc: each header is "070701" and 13 hex fields, names
// and data 4-byte aligned, a TRAILER!!! at the end.
func TestCpio(t *testing.T) {
	var b bytes.Buffer
	c := newCpio(&b)
	c.file("usr/lib/x", 0o755, []byte("abcde"))
	c.chardev("dev/console", 0o600, 5, 1)
	if err := c.close(); err != nil {
		t.Fatal(err)
	}
	var names []string
	data := b.Bytes()
	for len(data) >= 110 {
		h := string(data[:110])
		if h[:6] != "070701" {
			t.Fatalf("bad magic %q", h[:6])
		}
		field := func(i int) int {
			var n int
			for _, ch := range h[6+8*i : 14+8*i] {
				n = n*16 + strings.IndexRune("0123456789ABCDEF", ch)
			}
			return n
		}
		size, namesize := field(6), field(11)
		name := string(data[110 : 110+namesize-1])
		names = append(names, name)
		off := (110 + namesize + 3) &^ 3
		off = (off + size + 3) &^ 3
		data = data[off:]
		if name == "TRAILER!!!" {
			break
		}
	}
	if got := strings.Join(names, " "); got != "usr usr/lib usr/lib/x dev dev/console TRAILER!!!" || len(data) != 0 {
		t.Errorf("entries %q, %d bytes left", got, len(data))
	}
}

func TestParseLdd(t *testing.T) {
	libs, err := parseLdd("\tlinux-vdso.so.1 (0x00007ffd)\n\tlibm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007f4c)\n\t/lib64/ld-linux-x86-64.so.2 (0x00007f4c)\n")
	if err != nil || strings.Join(libs, " ") != "/lib/x86_64-linux-gnu/libm.so.6 /lib64/ld-linux-x86-64.so.2" {
		t.Errorf("got %q %v", libs, err)
	}
	if _, err := parseLdd("\tlibfoo.so => not found\n"); err == nil {
		t.Error("a missing library is no error")
	}
}
