// Package fabrictest serialises, across test processes, the tests that make
// a dead run's leftovers or call fabric.Clean, and those that load the
// host's cores for long (the testbed's chaos runs) against those that
// measure rates and need them idle (the fabric's shaping tests).
//
// `go test ./...` runs packages' test binaries at the same time, and the
// host's namespaces are shared among them. Clean rightly removes every dead
// run it finds, so a test that kills a run to see Clean remove it, or that
// plants a name for Build to trip over, races with any other test's Clean:
// one removes what the other was about to look at. Such tests hold the host
// lock for their whole length; tests that only build and close fabrics do not
// need it, since a live run is never touched by Clean.
package fabrictest

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// lockDir is flocked: the directory that holds the named namespaces, which
// every fabric creates anyway, so the lock leaves no file of its own behind.
const lockDir = "/run/netns"

// LockHost blocks until no other test process holds the host lock, takes
// it, and releases it when t ends. The kernel drops it if the process dies.
func LockHost(t testing.TB) {
	t.Helper()
	if err := os.MkdirAll(lockDir, 0o755); err != nil {
		t.Fatalf("fabrictest: %v", err)
	}
	f, err := os.Open(lockDir)
	if err != nil {
		t.Fatalf("fabrictest: %v", err)
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		t.Fatalf("fabrictest: lock %s: %v", lockDir, err)
	}
	t.Cleanup(func() { f.Close() }) // closing the last descriptor releases the lock
}
