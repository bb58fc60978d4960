package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mrsched/mrsched/internal/testfile"
)

// TestSlurmArraySweep runs a sweep on a real Slurm: it starts a
// single-node cluster (munged, slurmctld, slurmd) whose every file and
// socket is under the test's temporary directory, on ports of its own,
// submits examples/sweep/slurm.sbatch as a job array over a planned
// sweep, waits for it, checks that submitting it again runs nothing, and
// collects it. It stops every daemon it started.
//
// The array's tasks run this test binary as mrsched (TestMain runs the
// command when mainEnv is 1), so nothing is built and everything the test
// writes is under its temporary directory.
//
// It needs root (slurmd runs jobs as their users) and Slurm and MUNGE
// (Debian: slurmctld slurmd slurm-client munge; .ci/run installs them when
// it runs as root), and is skipped without them, or where the cluster
// cannot be started, unless MRSCHED_REQUIRE_SLURM=1 (which .ci/run sets
// where Slurm is installed), when it fails.
func TestSlurmArraySweep(t *testing.T) {
	skip := t.Skipf
	if os.Getenv("MRSCHED_REQUIRE_SLURM") == "1" {
		skip = t.Fatalf
	}
	if testing.Short() {
		t.Skip("starts a Slurm cluster; not with -short")
	}
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		skip("needs root on Linux to start slurmd")
	}
	for _, bin := range []string{"munged", "slurmctld", "slurmd", "sbatch", "scontrol", "sinfo"} {
		if _, err := exec.LookPath(bin); err != nil {
			skip("Slurm is not installed (no %s): apt-get install --no-install-recommends slurmctld slurmd slurm-client munge", bin)
		}
	}
	dir := t.TempDir()
	mrsched, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := startSlurm(t, dir, skip)

	sweepDir := filepath.Join(dir, "tiny")
	out := command(t, "sweep", "plan", "-grid", filepath.Join("..", "..", "examples", "sweep", "tiny.yaml"), "-out", sweepDir)
	if !strings.Contains(out, "sbatch --array=0-11") {
		t.Fatalf("plan does not give the array to submit:\n%s", out)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "examples", "sweep", "slurm.sbatch"))
	if err != nil {
		t.Fatal(err)
	}
	submit := func(array string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		// --mem overrides the script's 2G, which this test's node may
		// not have; --wait returns when every task has ended, non-zero
		// if one failed.
		cmd := exec.CommandContext(ctx, "sbatch", "--wait", "--array="+array, "--mem=200M",
			"--chdir="+dir, "--output="+filepath.Join(dir, "slurm-%A_%a.out"),
			"--export=ALL,SWEEP_DIR="+sweepDir+",MRSCHED="+mrsched+","+mainEnv+"=1", script)
		cmd.Env = c.env
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("sbatch --array=%s: %v\n%s\n%s", array, err, out, c.logs())
		}
		t.Logf("sbatch --wait --array=%s: %s in %.1f s", array, strings.TrimSpace(string(out)), time.Since(start).Seconds())
		id := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(out)), "Submitted batch job"))
		if _, err := strconv.Atoi(id); err != nil {
			t.Fatalf("sbatch said %q, want a job id", out)
		}
		return id
	}
	job := submit("0-11")
	for i := range 12 {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("slurm-%s_%d.out", job, i)))
		if err != nil || !strings.Contains(string(b), fmt.Sprintf("run %d (", i)) || !strings.Contains(string(b), "from $SLURM_ARRAY_TASK_ID") {
			t.Errorf("task %d's output does not report its run: %v\n%s", i, err, b)
		}
	}
	// Submitted again (a resumed array), finished runs do not run again.
	again := submit("0-1")
	b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("slurm-%s_1.out", again)))
	if !strings.Contains(string(b), "already finished") {
		t.Errorf("a task for a finished run ran it again:\n%s", b)
	}
	out = command(t, "sweep", "collect", "-dir", sweepDir)
	t.Logf("collected:\n%s", out)
	if strings.Count(out, "± ") < 4*5 {
		t.Errorf("collect's table lacks a row of means ± standard errors for each of the 4 cells and policies:\n%s", out)
	}
}

// command runs mrsched with args in this process and returns its stdout
// and stderr; it fails the test on a non-zero exit.
func command(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("mrsched %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	return out + errOut
}

// slurm is a running single-node cluster.
type slurm struct {
	dir string
	env []string // the environment its commands need (SLURM_CONF)
}

func (s *slurm) logs() string {
	var b strings.Builder
	for _, f := range []string{"slurmctld.log", "slurmd.log", "munged.log"} {
		data, _ := os.ReadFile(filepath.Join(s.dir, f))
		fmt.Fprintf(&b, "--- %s\n%s", f, data)
	}
	return b.String()
}

// startSlurm starts munged, slurmctld and slurmd with everything under
// dir/slurm, and stops them when the test ends. It calls skip if they do
// not come up.
func startSlurm(t *testing.T, dir string, skip func(string, ...any)) *slurm {
	t.Helper()
	d := filepath.Join(dir, "slurm")
	for _, sub := range []string{"munge", "state", "spool"} {
		if err := os.MkdirAll(filepath.Join(d, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	s := &slurm{dir: d, env: append(os.Environ(), "SLURM_CONF="+filepath.Join(d, "slurm.conf"))}
	key := make([]byte, 1024)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(d, "munge", "munge.key")
	if err := os.WriteFile(keyFile, key, 0o400); err != nil {
		t.Fatal(err)
	}
	socket := filepath.Join(d, "munge", "munge.socket")
	started := func(name, pidFile string) {
		t.Cleanup(func() { stopDaemon(t, name, pidFile) })
	}
	started("munged", filepath.Join(d, "munged.pid"))
	if out, err := exec.Command("munged", "--force", "--socket="+socket, "--key-file="+keyFile,
		"--pid-file="+filepath.Join(d, "munged.pid"), "--log-file="+filepath.Join(d, "munged.log"),
		"--seed-file="+filepath.Join(d, "munge", "seed")).CombinedOutput(); err != nil {
		skip("munged does not start: %v\n%s", err, out)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	ctldPort, dPort := freePort(t), freePort(t)
	text := fmt.Sprintf(`ClusterName=mrschedtest
SlurmctldHost=%[2]s(127.0.0.1)
SlurmctldPort=%[3]d
SlurmdPort=%[4]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[5]s
CredType=cred/munge
StateSaveLocation=%[1]s/state
SlurmdSpoolDir=%[1]s/spool
SlurmctldPidFile=%[1]s/slurmctld.pid
SlurmdPidFile=%[1]s/slurmd.pid
SlurmctldLogFile=%[1]s/slurmctld.log
SlurmdLogFile=%[1]s/slurmd.log
PlugStackConfig=%[1]s/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
SchedulerParameters=sched_interval=1,bf_interval=1
NodeName=mrschedtest NodeHostname=%[2]s NodeAddr=127.0.0.1 CPUs=%[6]d RealMemory=500 State=UNKNOWN
PartitionName=test Nodes=mrschedtest Default=YES MaxTime=INFINITE State=UP
`, d, host, ctldPort, dPort, socket, runtime.NumCPU())
	for name, text := range map[string]string{"slurm.conf": text, "plugstack.conf": ""} {
		testfile.Write(t, filepath.Join(d, name), text)
	}
	started("slurmctld", filepath.Join(d, "slurmctld.pid"))
	started("slurmd", filepath.Join(d, "slurmd.pid"))
	// -f names the configuration on the daemons' command lines too, so
	// that one left behind can be told by its path.
	conf := filepath.Join(d, "slurm.conf")
	for _, args := range [][]string{{"slurmctld", "-i", "-f", conf}, {"slurmd", "-N", "mrschedtest", "-f", conf}} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = s.env
		if out, err := cmd.CombinedOutput(); err != nil {
			skip("%s does not start: %v\n%s\n%s", args[0], err, out, s.logs())
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		cmd := exec.Command("sinfo", "-h", "-N", "-o", "%t")
		cmd.Env = s.env
		out, _ := cmd.Output()
		if strings.TrimSpace(string(out)) == "idle" {
			return s
		}
		if time.Now().After(deadline) {
			skip("the Slurm node is %q after 30 s, not idle\n%s", out, s.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// freePort returns a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// stopDaemon stops the daemon whose pid file is pidFile: SIGTERM, then
// SIGKILL if it has not exited within 10 s. Only the process the file
// names is signalled, and only if it is the daemon named.
func stopDaemon(t *testing.T, name, pidFile string) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return // never started
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return
	}
	comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil || strings.TrimSpace(string(comm)) != name {
		return // gone already, or the pid is another process's now
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return
		}
	}
	t.Logf("%s (pid %d) did not stop on SIGTERM; killing it", name, pid)
	_ = syscall.Kill(pid, syscall.SIGKILL)
}
