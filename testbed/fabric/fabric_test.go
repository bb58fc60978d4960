package fabric

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/netip"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mrsched/mrsched/testbed/fabric/fabrictest"
)

func TestSpecValidate(t *testing.T) {
	ok := Spec{Racks: 2, NodesPerRack: 2, NICBitsPerSec: 1e8, UplinkBitsPerSec: 1e8}
	with := func(f func(*Spec)) Spec { s := ok; f(&s); return s }
	for _, c := range []struct {
		name string
		spec Spec
		want string // substring of the error; "" for none
	}{
		{"defaults", ok, ""},
		{"run id with a capital", with(func(s *Spec) { s.RunID = "Ab" }), "RunID"},
		{"run id too long", with(func(s *Spec) { s.RunID = "abcdefghi" }), "RunID"},
		{"no racks", with(func(s *Spec) { s.Racks = 0 }), "Racks"},
		{"too many nodes per rack", with(func(s *Spec) { s.NodesPerRack = 255 }), "NodesPerRack"},
		{"NIC rate NaN", with(func(s *Spec) { s.NICBitsPerSec = math.NaN() }), "NICBitsPerSec"},
		{"uplink too slow", with(func(s *Spec) { s.UplinkBitsPerSec = 1000 }), "UplinkBitsPerSec"},
		{"both queue bounds", with(func(s *Spec) { s.QueuePackets, s.QueueBytes = 10, 10000 }), "set at most one"},
		{"queue below a frame", with(func(s *Spec) { s.QueueBytes = 100 }), "QueueBytes"},
		{"negative delay", with(func(s *Spec) { s.HopDelay = -1 }), "HopDelay"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.spec.validate()
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("validate: %v, want no error", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("validate: %v, want an error naming %s", err, c.want)
			case c.want == "" && got.QueuePackets != DefaultQueuePackets:
				t.Fatalf("QueuePackets = %d, want the default %d when no queue is given", got.QueuePackets, DefaultQueuePackets)
			}
		})
	}
}

func TestAvailableFindsWhatTheFabricNeeds(t *testing.T) {
	needPrivilege(t)
	before := snapshot(t)
	f, err := Available()
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"htb", "pfifo", "bfifo"} {
		if !f.Has(k) {
			t.Errorf("Available() = %v lacks %s, which every kernel since 2.6 has", f.Qdiscs, k)
		}
	}
	if f.Has("no-such-qdisc") {
		t.Errorf("Has says yes to a kind nobody offers")
	}
	checkNothingLeft(t, before, "", nil)
	t.Logf("kernel qdiscs: %v", f.Qdiscs)
}

// TestBuildConnectsEveryNodeAndCloseLeavesNothing builds 2 racks of 2 nodes,
// has every node open a TCP connection to every other and exchange a byte,
// and checks that Close removes every namespace and process of the run and
// that the host's own interfaces never change.
func TestBuildConnectsEveryNodeAndCloseLeavesNothing(t *testing.T) {
	needPrivilege(t)
	before := snapshot(t)
	f := build(t, Spec{Racks: 2, NodesPerRack: 2, NICBitsPerSec: 100e6, UplinkBitsPerSec: 50e6})
	if after := snapshot(t); !equalStrings(before.links, after.links) {
		t.Fatalf("Build changed the host's interfaces: before %v, after %v", before.links, after.links)
	}
	if got, want := len(f.Links()), 2*2+2*4; got != want {
		t.Errorf("Links() has %d links, want %d (2 per rack, 2 per node)", got, want)
	}
	nodes := f.Spec().Nodes()
	for n := range nodes {
		if a := f.NodeAddr(n); !f.Subnet().Contains(a) {
			t.Errorf("NodeAddr(%d) = %v is outside the fabric's subnet %v", n, a, f.Subnet())
		}
		l, err := f.Listen(n, "tcp", netip.AddrPortFrom(f.NodeAddr(n), 7000).String())
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				io.Copy(c, c)
				c.Close()
			}
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for src := range nodes {
		for dst := range nodes {
			if src == dst {
				continue
			}
			if err := echo(ctx, f, src, netip.AddrPortFrom(f.NodeAddr(dst), 7000)); err != nil {
				t.Errorf("node %d to node %d (%v): %v", src, dst, f.NodeAddr(dst), err)
			}
		}
	}
	// A node reaches nothing outside the fabric: it has no route to the host.
	if err := echo(ctx, f, 0, netip.MustParseAddrPort("192.0.2.1:7000")); err == nil {
		t.Errorf("node 0 reached an address outside the fabric")
	}
	// A process in a node, which Close must kill.
	cmd := helperCmd("sleep")
	if err := f.Start(0, cmd); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	ids := spaceIDs(f)
	if err := f.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatalf("the process Start started in node 0 outlived Close")
	}
	checkNothingLeft(t, before, f.RunID(), ids)
	if err := f.Close(); err != nil {
		t.Errorf("a second Close: %v, want nil", err)
	}
	if _, err := f.Counters(); err == nil {
		t.Errorf("Counters after Close succeeded, want an error")
	}
}

func equalStrings(a, b []string) bool { return strings.Join(a, "\n") == strings.Join(b, "\n") }

// echo connects from node src to dst, sends a byte and reads it back.
func echo(ctx context.Context, f *Fabric, src int, dst netip.AddrPort) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	c, err := f.DialContext(ctx, src, "tcp", dst.String())
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := c.Write([]byte{42}); err != nil {
		return err
	}
	b := make([]byte, 1)
	if _, err := io.ReadFull(c, b); err != nil {
		return err
	}
	if b[0] != 42 {
		return fmt.Errorf("echoed %d, want 42", b[0])
	}
	return nil
}

// TestStartRunsInTheNodeOnly checks that Start puts a process in its node's
// namespace and nowhere else, that a process with Pdeathsig survives the
// thread churn of later namespace work, and that Start refuses a command that
// would leave the namespace.
func TestStartRunsInTheNodeOnly(t *testing.T) {
	needPrivilege(t)
	f := build(t, Spec{Racks: 1, NodesPerRack: 2, NICBitsPerSec: 10e6, UplinkBitsPerSec: 10e6})
	cmd := helperCmd("sleep")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := f.Start(1, cmd); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	got, err := nsIDOf(fmt.Sprintf("/proc/%d/ns/net", cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	if want := f.nodes[1].id; got != want {
		t.Errorf("process is in namespace %v, want node 1's %v", got, want)
	}
	if host, _ := nsIDOf("/proc/self/ns/net"); got == host {
		t.Errorf("process is in the host's namespace")
	}
	// Churn threads: each InNode locks a thread, enters a namespace, leaves.
	for range 50 {
		if err := f.InNode(0, func() error { runtime.Gosched(); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	time.Sleep(100 * time.Millisecond)
	if !alive(cmd.Process.Pid) {
		t.Errorf("the process started with Pdeathsig died while its starter lives")
	}
	bad := helperCmd("sleep")
	bad.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	if err := f.Start(0, bad); err == nil {
		bad.Process.Kill()
		t.Errorf("Start accepted a command asking for its own network namespace")
	}
	if err := f.Start(2, helperCmd("sleep")); err == nil {
		t.Errorf("Start on node 2 of 2 succeeded")
	}
}

// TestBuildFailureLeavesNothing makes Build fail part way, and checks that
// it removed everything it had made and nothing else.
func TestBuildFailureLeavesNothing(t *testing.T) {
	needPrivilege(t)
	fabrictest.LockHost(t)
	for _, c := range []struct {
		name string
		run  string
		// setup makes Build fail, returning what it created for the test.
		setup func(t *testing.T, run string) (context.Context, []string)
	}{
		{"a node's name is taken", "tfail1", func(t *testing.T, run string) (context.Context, []string) {
			name := Prefix + run + "-n3" // the last node: most of the fabric is built by then
			h, err := createNamedNetns(name, false)
			if err != nil {
				t.Fatal(err)
			}
			h.Close()
			return context.Background(), []string{name}
		}},
		{"cancelled", "tfail2", func(t *testing.T, run string) (context.Context, []string) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, nil
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := snapshot(t)
			ctx, keep := c.setup(t, c.run)
			t.Cleanup(func() {
				for _, name := range keep {
					deleteNamedNetns(nil, name)
				}
			})
			f, err := Build(ctx, Spec{RunID: c.run, Racks: 2, NodesPerRack: 2, NICBitsPerSec: 10e6, UplinkBitsPerSec: 10e6})
			if err == nil {
				f.Close()
				t.Fatalf("Build succeeded, want an error")
			}
			after := snapshot(t)
			for _, n := range after.netns {
				if strings.HasPrefix(n, Prefix+c.run+"-") && !contains(keep, n) {
					t.Errorf("failed Build left namespace %s", n)
				}
			}
			for _, n := range keep {
				if !contains(after.netns, n) {
					t.Errorf("failed Build removed %s, which it did not make", n)
				}
			}
			if !equalStrings(before.links, after.links) {
				t.Errorf("host interfaces changed: before %v, after %v", before.links, after.links)
			}
			if c.name == "cancelled" && !errors.Is(err, context.Canceled) {
				t.Errorf("Build: %v, want it to say it was cancelled", err)
			}
		})
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// TestUsedSaysWhatWasBuilt checks that Used reports the queue, the delay and
// the congestion control each spec gets on this kernel.
func TestUsedSaysWhatWasBuilt(t *testing.T) {
	needPrivilege(t)
	feats, err := Available()
	if err != nil {
		t.Fatal(err)
	}
	base := Spec{Racks: 1, NodesPerRack: 1, NICBitsPerSec: 20e6, UplinkBitsPerSec: 10e6}
	for _, c := range []struct {
		name      string
		spec      func(*Spec)
		wantQdisc string // substring of every link's Qdisc
		wantDelay time.Duration
		wantCC    string // "" for the kernel's default
	}{
		{"defaults", func(*Spec) {}, "-> pfifo limit 100", 0, ""},
		{"byte queue", func(s *Spec) { s.QueueBytes = 30000 }, "-> bfifo limit 30000b", 0, ""},
		{"hop delay", func(s *Spec) { s.HopDelay = 100 * time.Microsecond }, map[bool]string{true: "-> netem delay 100µs limit 100", false: "-> pfifo limit 100"}[feats.Has("netem")],
			map[bool]time.Duration{true: 100 * time.Microsecond}[feats.Has("netem")], ""},
		{"reno", func(s *Spec) { s.CongestionControl = "reno" }, "-> pfifo limit 100", 0, "reno"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := base
			c.spec(&s)
			u := build(t, s).Used()
			for _, l := range u.Links {
				if !strings.Contains(l.Qdisc, c.wantQdisc) || !strings.HasPrefix(l.Qdisc, "htb rate ") {
					t.Errorf("%s: Qdisc %q, want htb then %q", l.Kind, l.Qdisc, c.wantQdisc)
				}
			}
			if u.HopDelayApplied != c.wantDelay {
				t.Errorf("HopDelayApplied = %v, want %v (netem available: %v); note: %s", u.HopDelayApplied, c.wantDelay, feats.Has("netem"), u.DelayNote)
			}
			if c.wantCC != "" && u.CongestionControl != c.wantCC {
				t.Errorf("CongestionControl = %q, want %q", u.CongestionControl, c.wantCC)
			}
			if len(u.Netns) != 3 || u.CongestionControl == "" || u.CongestionControl == "unknown" {
				t.Errorf("Used() = %+v, want 3 namespaces and the nodes' congestion control", u)
			}
		})
	}
}
