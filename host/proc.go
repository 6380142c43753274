package host

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SessionPIDs lists the processes of session sid, from /proc: a
// workload's session is its first process's PID (Result.RootPID).
func SessionPIDs(sid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the comm, which may hold spaces: state ppid pgrp session.
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) > 3 && f[3] == strconv.Itoa(sid) {
			out = append(out, pid)
		}
	}
	return out
}
