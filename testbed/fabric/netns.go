package fabric

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// netnsDir is where named network namespaces live, as `ip netns` keeps them:
// an empty file with the namespace bind-mounted onto it, which keeps the
// namespace alive without any process in it and lets Clean find it by name.
const netnsDir = "/run/netns"

// errThreadLost reports that a thread that had entered another namespace
// could not return to its own. The runtime ends that thread; anything it
// started with Pdeathsig set receives the signal.
var errThreadLost = errors.New("fabric: a thread could not return to its network namespace")

// inNetns runs fn on a new goroutine locked to an OS thread that has entered
// ns, and returns fn's error. Sockets fn opens, and processes it starts,
// belong to ns; goroutines fn starts run elsewhere. If the thread cannot
// return to its namespace afterwards it stays locked, so the runtime ends it
// when the goroutine returns rather than let other goroutines run in ns, and
// the error wraps errThreadLost.
func inNetns(ns netns.NsHandle, fn func() error) error {
	_, ok, err := onOwnThread(func() (struct{}, error) {
		if err := netns.Set(ns); err != nil {
			return struct{}{}, fmt.Errorf("fabric: enter network namespace: %w", err)
		}
		return struct{}{}, fn()
	})
	if !ok {
		return fmt.Errorf("fabric: open this thread's network namespace: %w", err)
	}
	return err
}

// createNamedNetns creates a new network namespace named name under netnsDir
// and returns an open handle to it. If lock, the handle holds an exclusive
// flock on the namespace, taken before the namespace is mounted under its
// name, so that no one can see it by name unlocked. The calling thread's
// namespace does not change. On error nothing is left: not the file, not the
// mount.
func createNamedNetns(name string, lock bool) (netns.NsHandle, error) {
	if err := os.MkdirAll(netnsDir, 0o755); err != nil {
		return netns.None(), fmt.Errorf("fabric: %w", err)
	}
	path := filepath.Join(netnsDir, name)
	// O_EXCL first: a name in use (another run, or a leftover) fails here,
	// before anything is created.
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return netns.None(), fmt.Errorf("fabric: create namespace %s: %w", name, err)
	}
	f.Close()
	h, err := onNewNetns(func() (netns.NsHandle, error) {
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			return netns.None(), fmt.Errorf("unshare: %w", err)
		}
		src := fmt.Sprintf("/proc/%d/task/%d/ns/net", os.Getpid(), unix.Gettid())
		h, err := netns.GetFromPath(src)
		if err == nil && lock {
			if err = unix.Flock(int(h), unix.LOCK_EX|unix.LOCK_NB); err != nil {
				err = fmt.Errorf("lock: %w", err)
			}
		}
		if err == nil {
			if err = unix.Mount(src, path, "none", unix.MS_BIND, ""); err != nil {
				err = fmt.Errorf("bind-mount: %w", err)
			}
		}
		return h, err
	})
	if err != nil {
		h.Close()
		unix.Unmount(path, unix.MNT_DETACH)
		os.Remove(path)
		return netns.None(), fmt.Errorf("fabric: create namespace %s: %w", name, err)
	}
	return h, nil
}

// onNewNetns runs enter on a thread locked for it alone: enter moves the
// thread into a new network namespace and returns a handle to it (with
// an error, whatever handle it got, which the caller closes). The thread
// goes back to its own namespace before it is unlocked; one that cannot
// go back stays locked, so that the runtime ends it rather than let
// goroutines run in the wrong namespace. The caller's thread never
// changes namespace.
func onNewNetns(enter func() (netns.NsHandle, error)) (netns.NsHandle, error) {
	h, ok, err := onOwnThread(enter)
	if !ok {
		return netns.None(), err
	}
	return h, err
}

// onOwnThread runs do on a thread locked for it alone, which do may move
// into another network namespace. The thread goes back to its own
// namespace before it is unlocked; one that cannot go back stays locked,
// so that the runtime ends it rather than let goroutines run in the wrong
// namespace, and the error wraps errThreadLost. The caller's thread never
// changes namespace. ok is false, with the error, when the thread's own
// namespace could not be opened and do did not run.
func onOwnThread[T any](do func() (T, error)) (v T, ok bool, err error) {
	type result struct {
		v   T
		err error
		ok  bool
	}
	res := make(chan result, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			runtime.UnlockOSThread()
			res <- result{err: err}
			return
		}
		defer orig.Close()
		v, err := do()
		if serr := netns.Set(orig); serr != nil {
			res <- result{v, errors.Join(err, fmt.Errorf("%w: %v", errThreadLost, serr)), true}
			return // still locked: the runtime ends this thread
		}
		runtime.UnlockOSThread()
		res <- result{v, err, true}
	}()
	r := <-res
	return r.v, r.ok, r.err
}

// deleteNamedNetns unmounts and removes a named namespace's file. The kernel
// frees the namespace, and the interfaces in it, once no process, socket or
// open handle refers to it any more. A file that is not a mount (a run killed
// between creating and mounting it) is removed all the same; a name that is
// already gone is not an error. dir, if not nil, is netnsDir opened before
// the name was mounted (openNetnsDir): see removeNamedNetns.
func deleteNamedNetns(dir *os.File, name string) error {
	_, err := removeNamedNetns(dir, name)
	return err
}

// openNetnsDir opens netnsDir as it is now, for removeNamedNetns to reach
// the mounts made under it from now on even if another directory is later
// mounted over it.
func openNetnsDir() (*os.File, error) {
	if err := os.MkdirAll(netnsDir, 0o755); err != nil {
		return nil, err
	}
	fd, err := unix.Open(netnsDir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: netnsDir, Err: err}
	}
	return os.NewFile(uintptr(fd), netnsDir), nil
}

// maxUnmounts bounds the mounts removeNamedNetns takes off one name: a
// name mounted more than once (by hand, or copied by a recursive bind of
// its directory) has one a mount.
const maxUnmounts = 16

// removeNamedNetns is deleteNamedNetns that also says whether the name was
// there to remove, so that Clean reports only what it removed, not the
// names of a run that closed itself between Clean's listing and its turn.
//
// A name can be mounted where its path no longer reaches: `ip netns add`,
// the first time it runs on a host, bind-mounts /run/netns onto itself
// recursively (so that its mounts propagate), which copies the names
// already mounted there into the new mount and covers the originals. The
// path then unmounts the copy only, and the file stays busy under the
// covered original. With dir, opened before (openNetnsDir), the original
// is reached through it and unmounted too; without it (Clean, after the
// run that made the name died), the error says what is left and why.
func removeNamedNetns(dir *os.File, name string) (bool, error) {
	path := filepath.Join(netnsDir, name)
	paths := []string{path}
	if dir != nil {
		paths = append(paths, fmt.Sprintf("/proc/self/fd/%d/%s", dir.Fd(), name))
	}
	for _, p := range paths {
		for range maxUnmounts {
			uerr := unix.Unmount(p, unix.MNT_DETACH)
			if uerr == unix.EINVAL || uerr == unix.ENOENT {
				break // not a mount point (any more)
			}
			if uerr != nil {
				return false, fmt.Errorf("fabric: unmount %s: %w", path, uerr)
			}
		}
	}
	var err error
	if dir != nil {
		err = unix.Unlinkat(int(dir.Fd()), name, 0)
		if err != nil {
			err = &os.PathError{Op: "remove", Path: path, Err: err}
		}
	} else {
		err = os.Remove(path)
	}
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		if errors.Is(err, unix.EBUSY) {
			return false, fmt.Errorf("fabric: %w: the name is still mounted where its path does not reach, most likely under a bind mount of %s made over it while its run was alive (as the first `ip netns add` on a host makes); the namespace holds no process, and its name goes when that mount of %s is unmounted or at reboot", err, netnsDir, netnsDir)
		}
		return false, fmt.Errorf("fabric: %w", err)
	}
	return true, nil
}

// isNetns says whether f is a namespace (a mounted name), not the empty file
// a name is before its namespace is mounted on it.
func isNetns(f *os.File) bool {
	var st unix.Statfs_t
	return unix.Fstatfs(int(f.Fd()), &st) == nil && st.Type == unix.NSFS_MAGIC
}

// nsID identifies a namespace by its nsfs device and inode, as the kernel
// shows it in /proc/PID/ns/net.
type nsID struct{ dev, ino uint64 }

func nsIDOf(path string) (nsID, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nsID{}, err
	}
	return nsID{st.Dev, st.Ino}, nil
}

func nsIDOfHandle(h netns.NsHandle) (nsID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(h), &st); err != nil {
		return nsID{}, err
	}
	return nsID{st.Dev, st.Ino}, nil
}
