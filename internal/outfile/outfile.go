// Package outfile writes the files a command was asked for (--trace,
// --html, --markdown, --svg) so that neither a hostile file system nor a
// typo costs anything:
//
//   - a file is written to a temporary name in its directory and renamed
//     onto its path when complete, so a reader never sees half a file and
//     a failed run leaves the old one;
//   - a symbolic link at the path is followed only when the caller owns
//     it: as root, writing through a link that another user planted in
//     /tmp would overwrite whatever it points at (fs.protected_symlinks
//     is off on some machines);
//   - Check says before a long run whether its outputs can be written, so
//     a measurement is not lost to a missing directory at the end.
package outfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// resolve returns the path to write: path itself, or the target of a
// symbolic link there that the caller owns.
func resolve(path string) (string, error) {
	if path == "" {
		return "", errors.New("no file name")
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return path, nil
	case err != nil:
		return "", err
	case fi.Mode()&os.ModeSymlink != 0:
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
			return "", fmt.Errorf("%s is a symbolic link owned by uid %d, not by this user (uid %d): refusing to write through it", path, st.Uid, os.Geteuid())
		}
		target, err := filepath.EvalSymlinks(path)
		if errors.Is(err, os.ErrNotExist) {
			// A dangling link of ours: write where it points.
			if t, rerr := os.Readlink(path); rerr == nil {
				if !filepath.IsAbs(t) {
					t = filepath.Join(filepath.Dir(path), t)
				}
				return t, nil
			}
		}
		if err != nil {
			return "", err
		}
		return resolve(target)
	case fi.IsDir():
		return "", fmt.Errorf("%s is a directory", path)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	return path, nil
}

// Check says whether path can be written: a file can be made in its
// directory, and the path is no directory and no link of another user's.
// It leaves nothing behind.
func Check(path string) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}

// File is an output being written; Commit puts it at its path.
type File struct {
	*os.File
	path string // where Commit renames it
	done bool
}

// Create starts writing the file at path.
func Create(path string) (*File, error) {
	dst, err := resolve(path)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: dst}, nil
}

// Commit closes the file and renames it onto its path (replacing what was
// there), readable by everyone as os.WriteFile's 0644 would make it.
func (f *File) Commit() error {
	if f.done {
		return errors.New("outfile: committed twice")
	}
	f.done = true
	err := f.File.Chmod(0o644)
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.File.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.File.Name())
	}
	return err
}

// Abort closes and removes the file; the path keeps what it had.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}

// Write writes data to path whole.
func Write(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
