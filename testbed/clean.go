package testbed

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
)

// workDirName matches the directories runs make for their nodes' stores:
// "mrsched-testbed-" + run id + "-" + a random suffix.
var workDirName = regexp.MustCompile(`^mrsched-testbed-[0-9a-f]+-[0-9]+$`)

// lockName is the file a run holds an exclusive lock on while it uses its
// work directory; the kernel drops the lock when the run's process dies.
const lockName = ".lock"

// lockWorkDir takes the run's lock on dir; the lock lasts until the
// process exits or the returned function is called.
func lockWorkDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// CleanWorkDirs removes the work directories that killed runs left in
// base (the system's temporary directory when empty): those named as runs
// name them whose lock no live run holds. It returns the paths removed.
func CleanWorkDirs(base string) ([]string, error) {
	if base == "" {
		base = os.TempDir()
	}
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !workDirName.MatchString(e.Name()) {
			continue
		}
		dir := filepath.Join(base, e.Name())
		unlock, err := lockWorkDir(dir)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			continue // a live run's
		}
		if err == nil {
			unlock()
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}
