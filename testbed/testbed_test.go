package testbed_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mrsched/mrsched/metrics"
	"github.com/mrsched/mrsched/scenario"
	"github.com/mrsched/mrsched/testbed"
	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/testbed/worker"
)

// workerEnv makes the test binary act as a worker: a run started by a test
// has no mrsched binary to start, so it starts this one again.
const workerEnv = "MRSCHED_TESTBED_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) == "1" {
		if err := worker.Run(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func testWorker() (*exec.Cmd, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), workerEnv+"=1")
	return cmd, nil
}

// needPrivilege skips a test that needs to create namespaces, saying what
// is missing.
func needPrivilege(t *testing.T) {
	t.Helper()
	if err := fabric.CheckPrivileges(); err != nil {
		t.Skipf("the testbed needs privileges this test lacks: %v", err)
	}
}

// leftovers lists what run could leave behind: its namespaces (other
// runs on the host, such as other packages' tests, are not counted), and
// work directories.
func leftovers(t *testing.T, run, workDir string) []string {
	t.Helper()
	var out []string
	if es, err := os.ReadDir("/run/netns"); err == nil {
		for _, e := range es {
			if strings.HasPrefix(e.Name(), fabric.Prefix+run+"-") {
				out = append(out, "netns "+e.Name())
			}
		}
	}
	// Workers are this test binary with workerEnv set.
	if ps, err := os.ReadDir("/proc"); err == nil {
		for _, p := range ps {
			env, err := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
			if err == nil && bytes.Contains(env, []byte(workerEnv+"=1")) {
				out = append(out, "worker process "+p.Name())
			}
		}
	}
	if es, err := os.ReadDir(workDir); err == nil {
		for _, e := range es {
			out = append(out, "dir "+filepath.Join(workDir, e.Name()))
		}
	}
	return out
}

// TestTwoJobsOnTwoRacksUnderFair builds a 2-rack x 2-node testbed, runs
// two small FB-2009 jobs under fair, and checks that both complete with the
// output checksums their plans predict, and that the run leaves no
// namespace, process or file behind.
func TestTwoJobsOnTwoRacksUnderFair(t *testing.T) {
	needPrivilege(t)
	work := t.TempDir()
	res := runTestbed(t, `
cluster: {racks: 2, nodes_per_rack: 2, map_slots: 2, reduce_slots: 1}
workload: {trace: FB-2009, users: 2, start_s: 1120, end_s: 1183}
policy: {name: fair}
testbed: {bandwidth_scale: 0.1, byte_scale: 0.002, work_dir: `+work+`}
`, "two-jobs.yaml")
	s := checkBothJobs(t, res, "the slice holds job17 and job18")
	if !res.Report.ChecksumsOK {
		t.Error("the report says some checksum differs")
	}
	if s.Bytes.ShuffleTotal == 0 {
		t.Error("no shuffle bytes moved; job17 shuffles 13 GB unscaled")
	}
	var kernel uint64
	for _, l := range res.Report.Links {
		kernel += l.Bytes
	}
	if kernel == 0 {
		t.Error("the kernel counted no bytes on any shaped link")
	}
	if res.Report.Network.RunID == "" {
		t.Fatal("the report names no run id")
	}
	checkNothingLeft(t, res, work)
}

// TestWithoutPrivilegeChangesNothing runs the testbed as an unprivileged
// user and checks it refuses with an error naming what is missing.
func TestWithoutPrivilegeChangesNothing(t *testing.T) {
	if os.Getuid() != 0 {
		// Unprivileged already: Run must refuse before anything.
		c, err := scenario.Parse(strings.NewReader("workload: {trace: FB-2009, max_jobs: 1}\npolicy: {name: fair}\n"), "x.yaml")
		if err != nil {
			t.Fatal(err)
		}
		_, err = testbed.Run(context.Background(), c, testbed.Options{})
		if err == nil || !strings.Contains(err.Error(), "CAP_NET_ADMIN") {
			t.Fatalf("Run without privileges: %v; want an error naming CAP_NET_ADMIN", err)
		}
		return
	}
	t.Skip("runs as root; the fabric's own tests drop privileges to check this")
}

// TestNodeLossKeepsEveryOutput kills a node in the middle of two jobs'
// maps and shuffle (job17's 8 maps, at 5% of the trace's bytes, run on
// every node), lets it expire and brings it back, and checks that
// both jobs still complete with the checksums their plans predict (their
// outputs are functions of their inputs, whichever attempt made them) and
// that the master declared the node lost.
func TestNodeLossKeepsEveryOutput(t *testing.T) {
	needPrivilege(t)
	work := t.TempDir()
	res := runTestbed(t, `
cluster: {racks: 2, nodes_per_rack: 2, map_slots: 2, reduce_slots: 1}
workload: {trace: FB-2009, users: 2, start_s: 1120, end_s: 1183, scale: 0.05}
policy: {name: fair}
engine: {node_expiry_s: 10}
faults:
  - {kill_node: r1n0, at_s: 20}
  - {restore_node: r1n0, at_s: 60}
testbed: {bandwidth_scale: 0.1, byte_scale: 0.002, work_dir: `+work+`}
`, "loss.yaml")
	s := checkBothJobs(t, res, "a node loss fails none here (every block keeps two replicas)")
	t.Logf("faults %+v; failed attempts %v; fetch failures %v", s.Faults, res.Report.FailedAttempts, res.Report.FetchFailures)
	if s.Faults == nil || s.Faults.LostNodes != 1 || len(res.Report.LostNodes) != 1 || res.Report.LostNodes[0] != "r1n0" {
		t.Fatalf("faults %+v, lost nodes %v; want r1n0 declared lost once", s.Faults, res.Report.LostNodes)
	}
	if s.Faults.KilledAttempts+s.Faults.ReexecutedMaps == 0 {
		t.Errorf("the loss killed no attempt and lost no map output; the test wants it to hit work (every node runs two of job17's maps around t=20 s)")
	}
	checkNothingLeft(t, res, work)
}

// checkBothJobs checks that the run's two jobs (job17 and job18 of
// FB-2009's slice) completed with the output checksums their plans
// predict; why says why both must. It returns the run's summary.
func checkBothJobs(t *testing.T, res *testbed.Result, why string) metrics.Summary {
	t.Helper()
	s := res.Collector.Summarize("fair")
	if s.JobsSubmitted != 2 || s.JobsCompleted != 2 {
		t.Errorf("%d of %d jobs completed; want 2 of 2: %s", s.JobsCompleted, s.JobsSubmitted, why)
	}
	for _, j := range res.Report.Jobs {
		if !j.OK {
			t.Errorf("%s: %s, checksum %s; want completed with %s", j.Name, j.Status, j.Checksum, j.Expected)
		}
	}
	return s
}

// checkNothingLeft checks that the run left no namespace, worker process
// or file in work behind.
func checkNothingLeft(t *testing.T, res *testbed.Result, work string) {
	t.Helper()
	if left := leftovers(t, res.Report.Network.RunID, work); len(left) > 0 {
		t.Errorf("the run left %v behind", left)
	}
}

// runTestbed runs a scenario given as YAML (named name in errors) on the
// testbed with the test's worker, within three minutes.
func runTestbed(t *testing.T, src, name string) *testbed.Result {
	t.Helper()
	c, err := scenario.Parse(strings.NewReader(src), name)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := testbed.Run(ctx, c, testbed.Options{WorkerCommand: testWorker})
	if err != nil {
		t.Fatal(err)
	}
	return res
}
