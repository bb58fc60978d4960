package testbed_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/testbed"
	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/testbed/fabric/fabrictest"
)

// Chaos: faults no scenario configures, injected from outside a run as a
// cluster meets them (a reset connection, a port unreachable for a while, a
// worker killed or frozen), each on a small scenario that runs in a few
// seconds (time scale 0.01), with its outcome checked: the run completes,
// every job's output is the one its plan predicts, and what happened is
// in the report. docs/testbed.md, What it survives, lists them.

// chaosScenario is two racks of two nodes running job17 and job18 of
// FB-2009 at half their bytes, at time scale 0.01: a few seconds of wall
// time, every node busy. A node expires after engine.node_expiry_s's
// default 600 s, 6 s of wall time (the scenario checks refuse the setting
// without a faults: section). testbed holds further testbed settings,
// each followed by ", ".
func chaosScenario(t *testing.T, work, testbed string) *scenario.Config {
	t.Helper()
	c, err := scenario.Parse(strings.NewReader(`
cluster: {racks: 2, nodes_per_rack: 2, map_slots: 2, reduce_slots: 1}
workload: {trace: FB-2009, users: 2, start_s: 1120, end_s: 1183, scale: 0.5}
policy: {name: fair}
testbed: {bandwidth_scale: 0.1, byte_scale: 0.001, `+testbed+`work_dir: `+work+`}
`), "chaos.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runWorker is a worker process of the run whose work directory is in
// work: its pid and its node's namespace.
type runWorker struct {
	pid  int
	node string // namespace name
}

// runWorkers lists the run's worker processes with their nodes' namespaces.
func runWorkers(t *testing.T, work string) []runWorker {
	t.Helper()
	es, _ := os.ReadDir(work)
	run := ""
	for _, e := range es {
		if rest, ok := strings.CutPrefix(e.Name(), "mrsched-testbed-"); ok {
			run, _, _ = strings.Cut(rest, "-")
		}
	}
	if run == "" {
		return nil
	}
	byIno := map[uint64]string{}
	ns, _ := os.ReadDir("/run/netns")
	for _, e := range ns {
		var st syscall.Stat_t
		if strings.HasPrefix(e.Name(), fabric.Prefix+run+"-n") && syscall.Stat("/run/netns/"+e.Name(), &st) == nil {
			byIno[st.Ino] = e.Name()
		}
	}
	var out []runWorker
	ps, _ := os.ReadDir("/proc")
	for _, p := range ps {
		env, err := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
		if err != nil || !bytes.Contains(env, []byte(workerEnv+"=1")) {
			continue
		}
		var st syscall.Stat_t
		if syscall.Stat(filepath.Join("/proc", p.Name(), "ns/net"), &st) != nil || byIno[st.Ino] == "" {
			continue
		}
		var pid int
		for _, ch := range p.Name() {
			pid = pid*10 + int(ch-'0')
		}
		out = append(out, runWorker{pid: pid, node: byIno[st.Ino]})
	}
	return out
}

// during runs c, and calls inject once the run's workers have been up for
// after; it returns the run's result and error.
//
// It holds the host lock: a chaos run loads the host's cores for its whole
// length, and the fabric's rate measurements need them idle.
func during(t *testing.T, c *scenario.Config, work string, after time.Duration, inject func(ws []runWorker)) (*testbed.Result, error) {
	t.Helper()
	fabrictest.LockHost(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	type out struct {
		res *testbed.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := testbed.Run(ctx, c, testbed.Options{WorkerCommand: testWorker, LogDir: t.TempDir()})
		done <- out{res, err}
	}()
	var ws []runWorker
	for deadline := time.Now().Add(30 * time.Second); len(ws) < 4 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		ws = runWorkers(t, work)
	}
	if len(ws) < 4 {
		r := <-done
		t.Fatalf("found %d of the run's 4 workers; the run: %v", len(ws), r.err)
	}
	time.Sleep(after)
	inject(ws)
	r := <-done
	return r.res, r.err
}

// survives runs the chaos scenario, calls inject once the run's workers
// have been up for after, and checks the run completed, both jobs with the
// checksums their plans predict, and left nothing behind. It returns the
// run's result.
func survives(t *testing.T, after time.Duration, inject func(ws []runWorker)) *testbed.Result {
	t.Helper()
	needPrivilege(t)
	work := t.TempDir()
	res, err := during(t, chaosScenario(t, work, ""), work, after, inject)
	if err != nil {
		t.Fatalf("the run failed: %v", err)
	}
	checkBothJobs(t, res, "the run survives what was done to it")
	t.Logf("lost nodes %v (%v); worker events %v; fetch failures %d; map re-executions for them %d; failed attempts %v",
		res.Report.LostNodes, res.Report.NodeLosses, res.Report.WorkerEvents, len(res.Report.FetchFailures),
		len(res.Report.FetchFailureReexecutions), res.Report.FailedAttempts)
	checkNothingLeft(t, res, work)
	return res
}

// TestChaosWorkerKilled kills one worker (SIGKILL) in the middle of the
// run: its node expires, its work runs again elsewhere, the run completes.
func TestChaosWorkerKilled(t *testing.T) {
	res := survives(t, time.Second, func(ws []runWorker) {
		syscall.Kill(ws[1].pid, syscall.SIGKILL)
	})
	if res == nil {
		return
	}
	s := res.Collector.Summarize("fair")
	if s.Faults == nil || s.Faults.LostNodes != 1 || len(res.Report.LostNodes) != 1 || len(res.Report.NodeLosses) != 1 {
		t.Fatalf("faults %+v, lost nodes %v; want one node lost by expiry, accounted as a faults: loss", s.Faults, res.Report.LostNodes)
	}
	if !strings.Contains(strings.Join(res.Report.NodeLosses, " "), "worker exited") {
		t.Errorf("the loss says %v; want it to say the worker exited", res.Report.NodeLosses)
	}
}

// TestChaosWorkerFrozenPastExpiry stops one worker (SIGSTOP) past its
// node's expiry and resumes it: the node is lost when it expires, the
// worker that comes back is told to reinitialise (its stale work
// discarded, a new worker in its place), and the run completes.
func TestChaosWorkerFrozenPastExpiry(t *testing.T) {
	res := survives(t, time.Second, func(ws []runWorker) {
		syscall.Kill(ws[2].pid, syscall.SIGSTOP)
		time.Sleep(8 * time.Second) // the expiry is 6 s of wall time
		syscall.Kill(ws[2].pid, syscall.SIGCONT)
	})
	if res == nil {
		return
	}
	if len(res.Report.LostNodes) != 1 || !strings.Contains(res.Report.NodeLosses[0], "no heartbeat") {
		t.Errorf("lost nodes %v (%v); want the frozen node lost for want of heartbeats", res.Report.LostNodes, res.Report.NodeLosses)
	}
	if !strings.Contains(strings.Join(res.Report.WorkerEvents, " "), "reinitialise") {
		t.Errorf("worker events %v; want the returning worker told to reinitialise", res.Report.WorkerEvents)
	}
}

// TestChaosShuffleConnectionsReset resets every established data-plane
// connection of the cluster (ss -K), three times 0.7 s apart (70 scenario
// seconds at time scale 0.01):
// fetches, block reads and pipelines retry, and every output is right.
func TestChaosShuffleConnectionsReset(t *testing.T) {
	needPrivilege(t)
	if out, err := exec.Command("ss", "-K", "-h").CombinedOutput(); err != nil && !bytes.Contains(out, []byte("kill")) {
		t.Skipf("ss cannot kill sockets here: %v", err)
	}
	killed := 0
	survives(t, 300*time.Millisecond, func(ws []runWorker) {
		for range 3 {
			for _, w := range ws {
				out, _ := exec.Command("ip", "netns", "exec", w.node, "ss", "-K", "-t", "state", "established", "( sport = :50060 or dport = :50060 )").Output()
				killed += max(0, bytes.Count(out, []byte("\n"))-1)
			}
			time.Sleep(700 * time.Millisecond)
		}
	})
	t.Logf("ss -K closed %d sockets", killed)
}

// TestChaosShufflePortOutage blackholes one node's data-plane port (its
// packets from and to port 50060 go to a class that forwards 8 bit/s) for
// past the shuffle's connect timeout, then lets it through again:
// connections to it time out, fetches back off and retry, and the run
// completes.
func TestChaosShufflePortOutage(t *testing.T) {
	tc := func(ns string, args ...string) error {
		out, err := exec.Command("ip", append([]string{"netns", "exec", ns, "tc"}, args...)...).CombinedOutput()
		if err != nil {
			t.Logf("tc %v: %v: %s", args, err, out)
		}
		return err
	}
	res := survives(t, 500*time.Millisecond, func(ws []runWorker) {
		ns := ws[0].node
		if tc(ns, "class", "add", "dev", "eth0", "parent", "1:", "classid", "1:99", "htb", "rate", "8bit", "ceil", "8bit") != nil ||
			tc(ns, "filter", "add", "dev", "eth0", "parent", "1:", "protocol", "ip", "prio", "1", "u32", "match", "ip", "sport", "50060", "0xffff", "flowid", "1:99") != nil ||
			tc(ns, "filter", "add", "dev", "eth0", "parent", "1:", "protocol", "ip", "prio", "1", "u32", "match", "ip", "dport", "50060", "0xffff", "flowid", "1:99") != nil {
			t.Error("could not blackhole the port")
			return
		}
		time.Sleep(7 * time.Second) // the connect timeout is 3 s of wall time (its floor)
		tc(ns, "filter", "del", "dev", "eth0", "parent", "1:", "prio", "1")
	})
	if res != nil && len(res.Report.FetchFailures) == 0 && len(res.Report.FailedAttempts) == 0 {
		t.Errorf("no fetch failed and no attempt failed through a 7 s outage of a node's port; the outage did not bite")
	}
}

// TestChaosStallEndsWithADiagnosis freezes every worker, with a stall
// bound (3 s) shorter than the expiry (6 s): nothing moves, and the run ends with an
// error naming every waiting task, and a report that says so.
func TestChaosStallEndsWithADiagnosis(t *testing.T) {
	needPrivilege(t)
	work := t.TempDir()
	var frozen []runWorker
	res, err := during(t, chaosScenario(t, work, "stall_s: 3, "), work, 800*time.Millisecond, func(ws []runWorker) {
		frozen = ws
		for _, w := range ws {
			syscall.Kill(w.pid, syscall.SIGSTOP)
		}
	})
	for _, w := range frozen {
		syscall.Kill(w.pid, syscall.SIGCONT)
	}
	if err == nil || !strings.Contains(err.Error(), "stalled") || !strings.Contains(err.Error(), "testbed.stall_s") {
		t.Fatalf("the run ended with %v; want a stall naming testbed.stall_s", err)
	}
	if res == nil || len(res.Report.Stall) == 0 || res.Report.Error == "" {
		t.Fatalf("a stalled run returned no report of the stall")
	}
	diag := strings.Join(res.Report.Stall, "\n")
	t.Logf("diagnosis:\n%s", diag)
	for _, want := range []string{"running since t=", "did not answer"} {
		if !strings.Contains(diag, want) {
			t.Errorf("the diagnosis does not say %q", want)
		}
	}
	checkNothingLeft(t, res, work)
}
