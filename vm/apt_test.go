package vm

import (
	"strings"
	"testing"
)

func TestDerivedSources(t *testing.T) {
	machine := append(parseDeb822(`Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: http://security.example/debian-security
Suites: bookworm-security
Components: main

Types: deb
Enabled: no
URIs: http://disabled.example/
Suites: bookworm
`), parseOneLine("# a comment\ndeb [arch=amd64 signed-by=/k.gpg] http://other.example/x nodistro main\n")...)
	cases := []struct {
		suites []suite
		want   []string
	}{
		{[]suite{{"bullseye", ""}, {"bullseye", "-updates"}, {"bullseye", "-security"}}, []string{
			"deb [targets=Packages signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://mirror.example/debian bullseye main",
			"deb [targets=Packages signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://mirror.example/debian bullseye-updates main",
			"deb [targets=Packages] http://security.example/debian-security bullseye-security main"}},
		{[]suite{{"bookworm", "-backports"}}, []string{
			"deb [targets=Packages signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://mirror.example/debian bookworm-backports main"}},
		{[]suite{{"unstable", ""}}, []string{
			"deb [targets=Packages signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://mirror.example/debian unstable main"}},
	}
	for _, c := range cases {
		got, err := derivedSources(machine, "bookworm", c.suites)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Join(c.want, "\n") + "\n"; got != want {
			t.Errorf("%v:\n%s\nwant\n%s", c.suites, got, want)
		}
	}
	if _, err := derivedSources(machine, "trixie", Catalog[0].Suites); err == nil || !strings.Contains(err.Error(), "own suite trixie") {
		t.Errorf("a machine without its own suite: %v", err)
	}
}

func TestDepends(t *testing.T) {
	got := depends("dracut | initramfs-tools (>= 0.120+deb8u2) | linux-initramfs-tool, linux-binary-7.2.13+deb14-cloud-amd64 (= 7.2.13-1)")
	if strings.Join(got, " ") != "dracut linux-binary-7.2.13+deb14-cloud-amd64" {
		t.Errorf("got %q", got)
	}
}

func TestSchedOf(t *testing.T) {
	for rel, want := range map[string]string{"5.10.0-46-cloud-amd64": "CFS", "6.1.0-57-cloud-amd64": "CFS", "6.6.1": "EEVDF", "6.12.95+deb12-cloud-amd64": "EEVDF", "7.2.13+deb14-cloud-amd64": "EEVDF", "x": "unknown"} {
		if got := schedOf(rel); got != want {
			t.Errorf("%s: %s, want %s", rel, got, want)
		}
	}
}
