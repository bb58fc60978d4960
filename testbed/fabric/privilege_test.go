package fabric

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWithoutPrivilege runs CheckPrivileges and Build in a helper process
// that lacks what a fabric needs, and checks that both name what is missing
// and that Build created nothing. Capabilities are dropped from the bounding
// set of the thread that starts the helper, which then runs as root without
// them; the unprivileged case runs the helper as nobody.
func TestWithoutPrivilege(t *testing.T) {
	needPrivilege(t)
	for _, c := range []struct {
		name    string
		drop    []uintptr // capabilities to drop
		nobody  bool
		missing []string // what the errors must name
	}{
		{"root without CAP_NET_ADMIN", []uintptr{unix.CAP_NET_ADMIN}, false, []string{"CAP_NET_ADMIN"}},
		{"root without CAP_SYS_ADMIN", []uintptr{unix.CAP_SYS_ADMIN}, false, []string{"CAP_SYS_ADMIN"}},
		{"unprivileged user", nil, true, []string{"CAP_NET_ADMIN", "CAP_SYS_ADMIN"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := "tpriv" + string(rune('a'+len(c.drop)))
			if c.nobody {
				run = "tprivn"
			}
			before := snapshot(t)
			cmd := helperCmd("privileges", "FABRIC_TEST_RUN="+run)
			if c.nobody {
				// nobody must be able to execute the binary: copy it where it can.
				dir, err := os.MkdirTemp("", "fabric-priv")
				if err != nil {
					t.Fatal(err)
				}
				defer os.RemoveAll(dir)
				os.Chmod(dir, 0o755)
				bin := filepath.Join(dir, "fabric.test")
				if err := copyFile(os.Args[0], bin, 0o755); err != nil {
					t.Fatal(err)
				}
				cmd.Path, cmd.Args[0] = bin, bin
				cmd.Dir = dir
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			}
			out, err := outputDropping(cmd, c.drop)
			if err != nil {
				t.Fatalf("helper: %v\n%s", err, out)
			}
			var r privilegeResult
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("helper printed %q: %v", out, err)
			}
			t.Logf("CheckPrivileges: %s\n\tBuild: %s", r.Check, r.Build)
			for _, want := range c.missing {
				if !strings.Contains(r.Check, want) {
					t.Errorf("CheckPrivileges() = %q, want it to name the missing %s", r.Check, want)
				}
				if !strings.Contains(r.Build, want) {
					t.Errorf("Build: %q, want it to name the missing %s", r.Build, want)
				}
			}
			if !strings.Contains(r.Check, "root") {
				t.Errorf("CheckPrivileges() = %q, want it to say root would do", r.Check)
			}
			// The run's names and the host's interfaces only: fabrics of
			// tests in other packages come and go meanwhile.
			checkNothingLeft(t, before, run, nil)
		})
	}
}

// outputDropping runs cmd with the capabilities drop removed from its
// bounding set: the fork happens on a thread that dropped them, which is then
// discarded (the bounding set is per thread and inherited by children).
func outputDropping(cmd *exec.Cmd, drop []uintptr) ([]byte, error) {
	type result struct {
		out []byte
		err error
	}
	res := make(chan result, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the runtime ends this thread
		for _, c := range drop {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil {
				res <- result{nil, err}
				return
			}
		}
		out, err := cmd.Output()
		res <- result{out, err}
	}()
	r := <-res
	return r.out, r.err
}

func copyFile(src, dst string, mode os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, mode)
}
