package fabric

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mrsched/mrsched/testbed/fabric/fabrictest"
)

// TestCleanAfterKilledBuilder builds a fabric in a helper process that
// starts a process in each node (with no Pdeathsig, so they outlive it), kills
// the helper with SIGKILL, and runs Clean. Clean must remove the dead run's
// namespaces and processes, and nothing else: not a namespace that is not a
// fabric's (even one whose name starts with the prefix), and not a live
// fabric, which must still carry traffic afterwards.
func TestCleanAfterKilledBuilder(t *testing.T) {
	needPrivilege(t)
	fabrictest.LockHost(t)
	const dead = "tkilled"
	before := snapshot(t)
	// Namespaces Clean must leave alone.
	var unrelated []string
	for _, name := range []string{"mrsclean-unrelated", Prefix + "x1-corex", "unrelated-" + dead} {
		h, err := createNamedNetns(name, false)
		if err != nil {
			t.Fatal(err)
		}
		h.Close()
		unrelated = append(unrelated, name)
		t.Cleanup(func() { deleteNamedNetns(nil, name) })
	}
	live := build(t, Spec{RunID: "tlive", Racks: 1, NodesPerRack: 2, NICBitsPerSec: 10e6, UplinkBitsPerSec: 10e6})

	cmd := helperCmd("build", "FABRIC_TEST_RUN="+dead)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			cmd.Process.Kill()
			cmd.Wait()
		}
		Clean(context.Background()) // whatever the test left, if it failed
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "ready ") {
		t.Fatalf("helper said %q (%v), want ready", line, err)
	}
	var workers []int
	if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "ready ")), &workers); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	killed = true
	for _, pid := range workers {
		if !alive(pid) {
			t.Fatalf("worker %d died with the builder; the test needs it to outlive it", pid)
		}
	}
	ids := map[nsID]bool{}
	for _, n := range snapshot(t).netns {
		if strings.HasPrefix(n, Prefix+dead+"-") {
			id, _ := nsIDOf(netnsDir + "/" + n)
			ids[id] = true
		}
	}
	if len(ids) != 5 { // helperBuild builds 2 racks of 1 node: core, 2 racks, 2 nodes
		t.Fatalf("the killed run left %d namespaces, want its 5", len(ids))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	removed, err := Clean(ctx)
	if err != nil {
		t.Fatalf("Clean: %v", err)
	}
	slices.Sort(removed)
	want := []string{Prefix + dead + "-core", Prefix + dead + "-n0", Prefix + dead + "-n1", Prefix + dead + "-r0", Prefix + dead + "-r1"}
	if !slices.Equal(removed, want) {
		t.Errorf("Clean removed %v, want exactly the killed run's %v", removed, want)
	}
	for _, pid := range workers {
		deadline := time.Now().Add(2 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("worker %d of the killed run survived Clean", pid)
		}
	}
	checkNothingLeft(t, before, dead, ids)
	after := snapshot(t)
	for _, n := range append(unrelated, live.Used().Netns...) {
		if !slices.Contains(after.netns, n) {
			t.Errorf("Clean removed %s, which is not a killed run's", n)
		}
	}
	l, err := live.Listen(1, "tcp", live.NodeAddr(1).String()+":7000")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Write([]byte{42})
			c.Close()
		}
	}()
	c, err := live.DialContext(ctx, 0, "tcp", l.Addr().String())
	if err != nil {
		t.Fatalf("the live fabric no longer connects after Clean: %v", err)
	}
	c.Close()
}

// TestCleanWaitsForANameBeingMounted: Build creates a namespace's name
// (an empty file) an instant before it mounts the namespace on it. Clean
// must leave a fresh unmounted core name alone, as a Build under way, and
// remove one old enough to be what a run killed at that instant left.
func TestCleanWaitsForANameBeingMounted(t *testing.T) {
	needPrivilege(t)
	fabrictest.LockHost(t)
	path := netnsDir + "/" + Prefix + "tmount-core"
	if err := os.WriteFile(path, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(path) })
	if _, err := Clean(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("Clean removed a fresh unmounted core name (a Build under way): %v", err)
	}
	old := time.Now().Add(-2 * unmountedGrace)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	removed, err := Clean(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err == nil || !slices.Contains(removed, Prefix+"tmount-core") {
		t.Errorf("Clean left an unmounted core name %v old (removed %v)", 2*unmountedGrace, removed)
	}
}

// TestCleanReportsOnlyWhatItRemoved: Clean lists the namespaces, then takes
// run by run; a live run may close itself in between. Clean must not report
// as removed the names that run already took away (a user reading "removed"
// would think it had touched a live run).
func TestCleanReportsOnlyWhatItRemoved(t *testing.T) {
	needPrivilege(t)
	names := []string{Prefix + "tgone-n0", Prefix + "tgone-r0", Prefix + "tgone-core"}
	removed, err := cleanRun("tgone", names)
	if err != nil {
		t.Fatal(err)
	}
	if len(removed) != 0 {
		t.Errorf("cleanRun of a run already gone reported %v removed, want nothing", removed)
	}
}
