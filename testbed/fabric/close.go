package fabric

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"time"

	"golang.org/x/sys/unix"
)

// killTimeout bounds how long Close and Clean wait for killed processes to
// leave the namespaces.
const killTimeout = 5 * time.Second

// Close removes everything the fabric made: it kills every process in the
// fabric's namespaces (found through /proc/PID/ns/net, so processes that
// Start did not start are found too), closes the sockets Listen and Dial
// opened, and removes the namespaces, which takes their interfaces, bridges
// and qdiscs with them. It works on a partly built fabric and may be called
// again; later calls do nothing and return nil.
func (f *Fabric) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil
	}
	f.closed = true
	var errs []error
	ids := map[nsID]bool{}
	for _, sp := range f.all {
		if sp.id != (nsID{}) {
			ids[sp.id] = true
		}
	}
	if _, err := killIn(ids, killTimeout); err != nil {
		errs = append(errs, err)
	}
	for _, c := range f.closers {
		c.Close()
	}
	f.closers = nil
	// Remove in reverse order of creation: the core, whose handle holds the
	// run's lock, goes last, so a concurrent Clean never sees this run as
	// dead while parts of it remain.
	for _, sp := range slices.Backward(f.all) {
		if sp.nl != nil {
			sp.nl.Close()
		}
		if err := deleteNamedNetns(f.dir, sp.name); err != nil {
			errs = append(errs, err)
		}
		sp.h.Close()
	}
	if f.dir != nil {
		f.dir.Close()
	}
	return errors.Join(errs...)
}

// unmountedGrace is how long Clean leaves a run alone whose core name exists
// but has no namespace mounted on it yet: Build mounts it microseconds after
// creating it, so an older one belongs to a run killed in between.
const unmountedGrace = 10 * time.Second

// leftoverName matches the namespaces fabrics create: Prefix, a run id, and
// a role. Clean removes nothing else.
var leftoverName = regexp.MustCompile(`^` + Prefix + `([a-z0-9]{1,8})-(core|r[0-9]+|n[0-9]+)$`)

// Clean removes what fabrics of killed runs left behind, and only that: the
// named namespaces under /run/netns whose names match the fabric's pattern
// (Prefix, run id, role) and whose run is dead, with every process still in
// them. A run is alive while the process that built it holds a lock on its
// core namespace; the kernel drops the lock when that process dies, however
// it dies, so Clean never touches a fabric that is in use. It returns the
// names of the namespaces it removed. It needs the same privileges as Build.
func Clean(ctx context.Context) (removed []string, err error) {
	if err := CheckPrivileges(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(netnsDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("fabric: %w", err)
	}
	runs := map[string][]string{} // run id -> namespace names
	var order []string
	for _, e := range entries {
		m := leftoverName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if runs[m[1]] == nil {
			order = append(order, m[1])
		}
		runs[m[1]] = append(runs[m[1]], e.Name())
	}
	var errs []error
	for _, run := range order {
		if err := ctx.Err(); err != nil {
			return removed, errors.Join(append(errs, err)...)
		}
		names := runs[run]
		got, err := cleanRun(run, names)
		removed = append(removed, got...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return removed, errors.Join(errs...)
}

// cleanRun removes one run's namespaces unless the run is alive.
func cleanRun(run string, names []string) ([]string, error) {
	core := Prefix + run + "-core"
	if slices.Contains(names, core) {
		f, err := os.Open(netnsDir + "/" + core)
		if err == nil {
			defer f.Close()
			if !isNetns(f) {
				// A name not yet mounted: a Build under way, unless it is
				// old enough to be a run killed at that moment.
				if st, err := f.Stat(); err == nil && time.Since(st.ModTime()) < unmountedGrace {
					return nil, nil
				}
			} else if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); errors.Is(err, unix.EWOULDBLOCK) {
				return nil, nil // a live run
			}
			// The lock is held until this returns: a second Clean waits its turn.
		}
		// Remove the core last, as Close does.
		names = append(slices.DeleteFunc(slices.Clone(names), func(s string) bool { return s == core }), core)
	}
	ids := map[nsID]bool{}
	for _, name := range names {
		if id, err := nsIDOf(netnsDir + "/" + name); err == nil {
			ids[id] = true
		}
	}
	var errs []error
	if _, err := killIn(ids, killTimeout); err != nil {
		errs = append(errs, err)
	}
	var removed []string
	for _, name := range names {
		gone, err := removeNamedNetns(nil, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if gone {
			removed = append(removed, name)
		}
	}
	return removed, errors.Join(errs...)
}
