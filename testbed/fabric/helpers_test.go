package fabric

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vishvananda/netlink"
	"golang.org/x/sys/unix"
)

// needPrivilege skips t, naming what is missing, where this process cannot
// build a fabric.
func needPrivilege(t *testing.T) {
	t.Helper()
	if err := CheckPrivileges(); err != nil {
		t.Skipf("skipped: needs the privilege to create network namespaces: %v", err)
	}
	if _, err := Available(); err != nil {
		t.Skipf("skipped: cannot create a network namespace here: %v", err)
	}
}

// build builds s and closes the fabric when t ends, pass or fail.
func build(t *testing.T, s Spec) *Fabric {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f, err := Build(ctx, s)
	if err != nil {
		t.Fatalf("Build(%+v): %v", s, err)
	}
	t.Cleanup(func() {
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return f
}

// flow is one bulk TCP transfer between two nodes, as a test measures it.
type flow struct {
	src, dst int
	bytes    int64
	cc       string
	// marks[i] is when the receiver had read i/len(marks-1) of the bytes.
	marks []time.Time
	// mss is the sender's maximum segment size (TCP_MAXSEG), payload only.
	mss int
	// info is the sender's TCP_INFO when it has written the last byte.
	info *unix.TCPInfo
	err  error
	done chan struct{}
	// gate, when not nil, holds the sender after it has connected until
	// it is closed, and ready is closed once it has connected: flows
	// released together start together on a host short of CPU.
	gate, ready chan struct{}
}

const flowMarks = 100

// startFlow starts sending fl.bytes from fl.src to fl.dst over one TCP
// connection; wait for it with <-fl.done.
func startFlow(f *Fabric, src, dst, port int, bytes int64) *flow {
	return startFlowCC(f, src, dst, port, bytes, "")
}

// startFlowCC is startFlow with the sender's congestion control set to cc
// ("" keeps the namespace's default).
func startFlowCC(f *Fabric, src, dst, port int, bytes int64, cc string) *flow {
	return startGatedFlow(f, src, dst, port, bytes, cc, nil)
}

// startGatedFlow is startFlowCC with a sender that connects, closes
// fl.ready, and waits for gate to close before it sends (a nil gate: no
// wait).
func startGatedFlow(f *Fabric, src, dst, port int, bytes int64, cc string, gate chan struct{}) *flow {
	fl := &flow{src: src, dst: dst, bytes: bytes, cc: cc, done: make(chan struct{}), gate: gate, ready: make(chan struct{})}
	go func() {
		defer close(fl.done)
		fl.err = fl.run(f, port)
	}()
	return fl
}

func (fl *flow) run(f *Fabric, port int) error {
	l, err := f.Listen(fl.dst, "tcp", net.JoinHostPort(f.NodeAddr(fl.dst).String(), strconv.Itoa(port)))
	if err != nil {
		return err
	}
	defer l.Close()
	sent := make(chan error, 1)
	go func() {
		c, err := f.DialContext(context.Background(), fl.src, "tcp", l.Addr().String())
		if err != nil {
			sent <- err
			return
		}
		defer c.Close()
		raw, _ := c.(*net.TCPConn).SyscallConn()
		var ccErr error
		raw.Control(func(fd uintptr) {
			fl.mss, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_MAXSEG)
			// The whole flow fits in the send buffer, so a sender the
			// host's scheduler holds back never leaves the link idle:
			// the link and TCP, not the test's goroutines, set the shares.
			_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUFFORCE, int(min(fl.bytes, 64<<20)))
			if fl.cc != "" {
				ccErr = unix.SetsockoptString(int(fd), unix.IPPROTO_TCP, unix.TCP_CONGESTION, fl.cc)
			}
		})
		if ccErr != nil {
			sent <- fmt.Errorf("congestion control %s: %w", fl.cc, ccErr)
			return
		}
		close(fl.ready)
		if fl.gate != nil {
			<-fl.gate
		}
		buf := make([]byte, 256<<10)
		for left := fl.bytes; left > 0; {
			n, err := c.Write(buf[:min(int64(len(buf)), left)])
			left -= int64(n)
			if err != nil {
				sent <- err
				return
			}
		}
		raw.Control(func(fd uintptr) { fl.info, _ = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO) })
		sent <- nil
	}()
	c, err := l.Accept()
	if err != nil {
		return err
	}
	defer c.Close()
	if raw, err := c.(*net.TCPConn).SyscallConn(); err == nil {
		// Room for the whole flow: a receiver held back by the host's
		// scheduler does not close the window on its sender.
		raw.Control(func(fd uintptr) {
			_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUFFORCE, int(min(fl.bytes, 64<<20)))
		})
	}
	buf := make([]byte, 256<<10)
	var got int64
	for got < fl.bytes {
		n, err := c.Read(buf)
		got += int64(n)
		now := time.Now()
		for int64(len(fl.marks)) <= flowMarks && got >= fl.bytes*int64(len(fl.marks))/flowMarks {
			fl.marks = append(fl.marks, now)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	if got != fl.bytes {
		return fmt.Errorf("received %d of %d bytes", got, fl.bytes)
	}
	return <-sent
}

// bytesBetween is how many bytes the receiver read between t0 and t1,
// counted in whole marks.
func (fl *flow) bytesBetween(t0, t1 time.Time) int64 {
	n := 0
	for _, m := range fl.marks[1:] {
		if m.After(t0) && !m.After(t1) {
			n++
		}
	}
	return int64(n) * fl.bytes / flowMarks
}

// hostState is what a fabric must leave as it found it.
type hostState struct {
	netns []string // names under /run/netns
	links []string // interfaces of the host's own namespace
}

func snapshot(t *testing.T) hostState {
	t.Helper()
	var s hostState
	entries, err := os.ReadDir(netnsDir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		s.netns = append(s.netns, e.Name())
	}
	links, err := netlink.LinkList()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range links {
		s.links = append(s.links, l.Attrs().Name)
	}
	slices.Sort(s.links)
	return s
}

// checkNothingLeft fails t if anything of run remains: a namespace, a host
// interface that was not there before, a process in one of ids.
func checkNothingLeft(t *testing.T, before hostState, run string, ids map[nsID]bool) {
	t.Helper()
	after := snapshot(t)
	for _, n := range after.netns {
		if strings.HasPrefix(n, Prefix+run+"-") {
			t.Errorf("namespace %s of run %s is left in %s", n, run, netnsDir)
		}
	}
	if !slices.Equal(before.links, after.links) {
		t.Errorf("host interfaces changed: before %v, after %v", before.links, after.links)
	}
	if pids, _ := pidsIn(ids); len(pids) > 0 {
		t.Errorf("processes %v are left in the run's namespaces", pids)
	}
}

// spaceIDs collects the namespace identities of a fabric, to look for
// processes in them after it is gone.
func spaceIDs(f *Fabric) map[nsID]bool {
	ids := map[nsID]bool{}
	for _, sp := range f.all {
		ids[sp.id] = true
	}
	return ids
}

// helperCmd runs this test binary in helper mode mode (see TestMain).
func helperCmd(mode string, env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + mode}, env...)...)
	return cmd
}

// alive says whether pid exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z'
}

// cpuTimes is the host's aggregate CPU time from /proc/stat, in clock
// ticks. Time spent on niced work counts as busy: it yields to the test's
// processes, but a shaped link still ran 1-6% slow beside it
// (docs/testbed.md, The host).
type cpuTimes struct{ idle, total uint64 }

func readCPU(t *testing.T) cpuTimes {
	t.Helper()
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatalf("reading the host's CPU times: %v", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	if len(fields) < 6 || fields[0] != "cpu" {
		t.Fatalf("/proc/stat: unexpected first line %q", line)
	}
	var c cpuTimes
	for i, s := range fields[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("/proc/stat: field %d of %q: %v", i+1, line, err)
		}
		if i >= 8 { // guest and guest_nice are already in user and nice
			break
		}
		c.total += v
		if i == 3 || i == 4 { // idle, iowait
			c.idle += v
		}
	}
	return c
}

// idleSince is the fraction of the host's CPU time that was idle between
// an earlier reading and c.
func (c cpuTimes) idleSince(earlier cpuTimes) float64 {
	if c.total <= earlier.total {
		return 1
	}
	return float64(c.idle-earlier.idle) / float64(c.total-earlier.total)
}

// waitIdle waits until the host's CPUs were at least frac idle over one
// second, for at most max; past that it fails t, since the measurement
// that follows needs the CPU it would not get.
func waitIdle(t *testing.T, frac float64, max time.Duration) {
	t.Helper()
	deadline := time.Now().Add(max)
	for {
		before := readCPU(t)
		time.Sleep(time.Second)
		idle := readCPU(t).idleSince(before)
		if idle >= frac {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the host stayed busy (%.0f%% idle over the last second, want %.0f%%) for %v: a measurement of TCP's shares needs the CPU its packets take", 100*idle, 100*frac, max)
		}
	}
}
