package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mrsched/mrsched/internal/testfile"
	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/testbed/fabric/fabrictest"
)

// mainEnv makes the test binary act as the mrsched command: the testbed
// tests run the CLI in a process of its own (to interrupt or kill it), and
// a run starts its workers by running its own executable again.
const mainEnv = "MRSCHED_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// mrschedCmd is the test binary run as `mrsched args...`.
func mrschedCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	return cmd
}

func needTestbedPrivilege(t *testing.T) {
	t.Helper()
	if err := fabric.CheckPrivileges(); err != nil {
		t.Skipf("the testbed needs privileges this test lacks: %v", err)
	}
}

// runNamespaces lists the fabric namespaces on the host.
func runNamespaces() []string {
	var out []string
	es, _ := os.ReadDir("/run/netns")
	for _, e := range es {
		if strings.HasPrefix(e.Name(), fabric.Prefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// longScenario writes a scenario whose testbed run takes about half a
// minute, with its work directory under dir.
func longScenario(t *testing.T, dir string) string {
	return testbedScenario(t, dir, "long.yaml", "cluster: {racks: 2, nodes_per_rack: 2}\nworkload: {trace: FB-2009, users: 2, max_jobs: 40}\n", "0.01")
}

// shortScenario writes a scenario whose testbed run takes a few seconds,
// with its work directory under dir.
func shortScenario(t *testing.T, dir string) string {
	return testbedScenario(t, dir, "short.yaml", "cluster: {racks: 2, nodes_per_rack: 2, map_slots: 2, reduce_slots: 1}\nworkload: {trace: FB-2009, users: 2, start_s: 1120, end_s: 1183, scale: 0.5}\n", "0.002")
}

// testbedScenario writes dir/name: the cluster and workload of head under
// fair sharing, on a testbed that scales bandwidth by 0.1 and bytes by
// byteScale and works in dir/work (made here).
func testbedScenario(t *testing.T, dir, name, head, byteScale string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	src := head + "policy: {name: fair}\n" +
		"testbed: {bandwidth_scale: 0.1, byte_scale: " + byteScale + ", work_dir: " + filepath.Join(dir, "work") + "}\n"
	if err := os.MkdirAll(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	testfile.Write(t, path, src)
	return path
}

// startRun starts `mrsched testbed` on the long scenario and waits until
// its network exists.
func startRun(t *testing.T, dir string) (*exec.Cmd, *bytes.Buffer, string) {
	t.Helper()
	cmd := mrschedCmd(t, "testbed", "-q", "-config", longScenario(t, dir), "-out", filepath.Join(dir, "out"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if len(workDirs(t, dir)) > 0 {
			id := runID(t, dir)
			if len(runOf(t, dir, id)) > 0 {
				time.Sleep(time.Second) // let the workers start
				return cmd, &stderr, id
			}
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Fatalf("the run built no network within 30 s: %s", stderr.String())
	return nil, nil, ""
}

// runOf is the namespaces of the run whose work directory is in dir: its
// name carries the run's id ("mrsched-testbed-ID-N"), as the namespaces'
// names do ("mrsID-ROLE"). Other runs (other tests on the host) are not
// counted.
func runOf(t *testing.T, dir, id string) []string {
	t.Helper()
	var out []string
	for _, ns := range runNamespaces() {
		if strings.HasPrefix(ns, fabric.Prefix+id+"-") {
			out = append(out, ns)
		}
	}
	return out
}

// runID reads the id of the run whose work directory is in dir.
func runID(t *testing.T, dir string) string {
	t.Helper()
	for _, d := range workDirs(t, dir) {
		if rest, ok := strings.CutPrefix(d, "mrsched-testbed-"); ok {
			id, _, _ := strings.Cut(rest, "-")
			return id
		}
	}
	t.Fatal("no run's work directory")
	return ""
}

func workDirs(t *testing.T, dir string) []string {
	es, err := os.ReadDir(filepath.Join(dir, "work"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

// TestTestbedInterruptLeavesNothing interrupts a run (SIGINT, as Ctrl-C
// does) and checks that it exits with an error and leaves no namespace,
// worker process or work directory.
func TestTestbedInterruptLeavesNothing(t *testing.T) {
	needTestbedPrivilege(t)
	dir := t.TempDir()
	cmd, stderr, id := startRun(t, dir)
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Errorf("an interrupted run exited with %v; want exit status 1 (stderr: %s)", err, stderr)
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr does not say the run was interrupted: %s", stderr)
	}
	// An interrupted run still says what happened.
	b, err := os.ReadFile(filepath.Join(dir, "out", "testbed.json"))
	if err != nil || !bytes.Contains(b, []byte(`"error"`)) || !bytes.Contains(b, []byte("interrupted")) {
		t.Errorf("testbed.json of the interrupted run: %v; want it written with its error, saying it was interrupted:\n%.500s", err, b)
	}
	if left := runOf(t, dir, id); len(left) > 0 {
		t.Errorf("the interrupted run left namespaces %v", left)
	}
	if left := workDirs(t, dir); len(left) > 0 {
		t.Errorf("the interrupted run left work directories %v", left)
	}
}

// TestTestbedCleanAfterKill kills a run with SIGKILL, which leaves its
// network and work directory behind, and checks that `testbed clean`
// removes them, and only them.
func TestTestbedCleanAfterKill(t *testing.T) {
	needTestbedPrivilege(t)
	fabrictest.LockHost(t)
	dir := t.TempDir()
	cmd, stderr, id := startRun(t, dir)
	cmd.Process.Kill()
	cmd.Wait()
	if len(runOf(t, dir, id)) == 0 {
		t.Fatalf("a killed run left no namespace; nothing to test (stderr: %s)", stderr)
	}
	if len(workDirs(t, dir)) == 0 {
		t.Fatal("a killed run left no work directory; nothing to test")
	}
	// Workers die with their master (Pdeathsig): none may outlive it.
	time.Sleep(500 * time.Millisecond)
	keep := filepath.Join(dir, "work", "unrelated")
	if err := os.Mkdir(keep, 0o755); err != nil {
		t.Fatal(err)
	}
	clean := mrschedCmd(t, "testbed", "clean", "-work-dir", filepath.Join(dir, "work"))
	out, err := clean.CombinedOutput()
	if err != nil {
		t.Fatalf("testbed clean: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "removed") {
		t.Errorf("testbed clean reported no removal:\n%s", out)
	}
	if left := runOf(t, dir, id); len(left) > 0 {
		t.Errorf("namespaces of the killed run after clean: %v", left)
	}
	if left := workDirs(t, dir); len(left) != 1 || left[0] != "unrelated" {
		t.Errorf("work directory after clean holds %v; want only the unrelated one", left)
	}
}

// TestTestbedWithoutPrivilegeChangesNothing runs `mrsched testbed` as an
// unprivileged user: it must exit 1 naming the missing privilege, and
// create nothing (not even its output directory).
func TestTestbedWithoutPrivilegeChangesNothing(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start a process as another user")
	}
	// The unprivileged user must be able to run a copy of this binary.
	dir, err := os.MkdirTemp("", "mrsched-privilege-test-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	exe, _ := os.Executable()
	bin := filepath.Join(dir, "mrsched.test")
	src, err := os.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(dst, src)
	src.Close()
	dst.Close()
	scen := filepath.Join(dir, "s.yaml")
	os.WriteFile(scen, []byte("workload: {trace: FB-2009, max_jobs: 1}\npolicy: {name: fair}\n"), 0o644)
	cmd := exec.Command(bin, "testbed", "-config", scen, "-out", filepath.Join(dir, "out"))
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("unprivileged run: %v; want exit status 1\n%s", err, out)
	}
	if !strings.Contains(string(out), "CAP_NET_ADMIN") {
		t.Errorf("the error does not name the missing privilege:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
		t.Errorf("the refused run created its output directory (%v)", err)
	}
	if strings.Contains(string(out), "MB of input") {
		t.Errorf("the refused run went on to prepare its jobs:\n%s", out)
	}
}

// TestTestbedSurvivesAForeignNetnsAdd runs `ip netns add` on the host
// while a run is alive, on a host where it had never run (the first one
// bind-mounts /run/netns over itself, copying the run's names and covering
// the originals), and checks that the run exits 0 and removes every one of
// its namespaces all the same. All of it happens in a private mount
// namespace of its own (unshare -m), which starts with /run/netns as such
// a host has it, so the host's own mounts are neither needed nor touched.
func TestTestbedSurvivesAForeignNetnsAdd(t *testing.T) {
	needTestbedPrivilege(t)
	// Not under fabrictest.LockHost: ip netns add locks /run/netns too.

	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1) to give the test a mount namespace of its own")
	}
	dir := t.TempDir()
	cfg := shortScenario(t, dir)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	foreign := fmt.Sprintf("foreign-%d", os.Getpid())
	script := `umount /run/netns 2>/dev/null
"$EXE" testbed -q -config "$CFG" -out "$OUT" & pid=$!
i=0; while [ $i -lt 300 ] && ! ls "$WORK" | grep -q mrsched-testbed; do sleep 0.1; i=$((i+1)); done
sleep 1.5
ip netns add "$FOREIGN" || echo "ip netns add failed"
wait $pid; rc=$?
ip netns del "$FOREIGN"
exit $rc`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script)
	cmd.Env = append(os.Environ(), mainEnv+"=1", "EXE="+exe, "CFG="+cfg, "OUT="+filepath.Join(dir, "out"),
		"WORK="+filepath.Join(dir, "work"), "FOREIGN="+foreign)
	out, err := cmd.CombinedOutput()
	id := ""
	if es, _ := os.ReadDir(filepath.Join(dir, "out")); len(es) > 0 {
		if b, err := os.ReadFile(filepath.Join(dir, "out", "testbed.json")); err == nil {
			var r struct {
				Network struct {
					RunID string `json:"run_id"`
				} `json:"network"`
			}
			json.Unmarshal(b, &r)
			id = r.Network.RunID
		}
	}
	var left []string
	for _, ns := range runNamespaces() {
		if id != "" && strings.HasPrefix(ns, fabric.Prefix+id+"-") {
			left = append(left, ns)
		}
	}
	if len(left) > 0 {
		// The mounts went with the test's mount namespace; the names are
		// files on the host's /run: remove them.
		for _, ns := range left {
			os.Remove(filepath.Join("/run/netns", ns))
		}
	}
	if err != nil {
		t.Fatalf("the run beside a foreign `ip netns add`: %v\n%s", err, out)
	}
	if id == "" {
		t.Fatalf("the run wrote no testbed.json naming its run id:\n%s", out)
	}
	if len(left) > 0 {
		t.Errorf("the run exited 0 but left its namespaces %v", left)
	}
}

// TestTestbedDumpsGoroutinesAndGoesOn sends SIGUSR1 to a run: the master
// and every worker write their goroutines into the output directory, and
// the run completes.
func TestTestbedDumpsGoroutinesAndGoesOn(t *testing.T) {
	needTestbedPrivilege(t)
	fabrictest.LockHost(t) // a whole run: the fabric's rate measurements wait

	dir := t.TempDir()
	cfg := shortScenario(t, dir)
	out := filepath.Join(dir, "out")
	cmd := mrschedCmd(t, "testbed", "-q", "-config", cfg, "-out", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once the workers log, the run is under way.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if es, _ := os.ReadDir(filepath.Join(out, "workers")); len(es) >= 4 {
			break
		}
	}
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGUSR1)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the run after SIGUSR1: %v; want it to go on and complete\n%s", err, stderr.String())
	}
	master, _ := filepath.Glob(filepath.Join(out, "goroutines-master-*.txt"))
	workers, _ := filepath.Glob(filepath.Join(out, "workers", "goroutines-node*-*.txt"))
	if len(master) != 1 || len(workers) != 4 {
		t.Fatalf("goroutine dumps: master %v, workers %v; want the master's and each of the 4 workers'\n%s", master, workers, stderr.String())
	}
	for _, f := range append(master, workers...) {
		if b, err := os.ReadFile(f); err != nil || !bytes.Contains(b, []byte("goroutine")) {
			t.Errorf("%s holds no goroutine stacks (%v)", f, err)
		}
	}
}

// TestTestbedTakesTheOperatorsFiles: the testbed takes -trace and
// -allocations as simulate does: a JobHistory directory's jobs run on the
// emulated racks in the queues their histories record, and the record
// names the files.
func TestTestbedTakesTheOperatorsFiles(t *testing.T) {
	needTestbedPrivilege(t)
	hadoop, err := filepath.Abs("../../examples/hadoop")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := testbedScenario(t, dir, "tb.yaml", "cluster: {racks: 2, nodes_per_rack: 3, containers: 4}\n", "0.01")
	out := filepath.Join(dir, "out")
	b, err := mrschedCmd(t, "testbed", "-q", "-config", cfg, "-trace", filepath.Join(hadoop, "history"),
		"-allocations", filepath.Join(hadoop, "fair-scheduler.xml"), "-out", out).CombinedOutput()
	if err != nil || !strings.Contains(string(b), "fair on the testbed: 3/3 jobs") {
		t.Fatalf("testbed: %v\n%s\nwant the history's 3 jobs run", err, b)
	}
	jobs, err := os.ReadFile(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{",alice,prod.etl,", ",bob,prod.adhoc,", ",carol,dev,"} {
		if !bytes.Contains(jobs, []byte(w)) {
			t.Errorf("jobs.csv lacks %q (user and queue as the histories record them):\n%s", w, jobs)
		}
	}
	rec, _ := os.ReadFile(filepath.Join(out, "scenario.yaml"))
	if !bytes.Contains(rec, []byte("allocations: "+filepath.Join(hadoop, "fair-scheduler.xml"))) {
		t.Errorf("scenario.yaml does not name the allocation file:\n%s", rec)
	}
	if left := workDirs(t, dir); len(left) > 0 {
		t.Errorf("the run left %v in its work directory", left)
	}
}
