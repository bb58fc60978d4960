package fabric

import (
	"context"
	"fmt"
	"github.com/mrsched/mrsched/testbed/fabric/fabrictest"
	"math"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Shaping tests measure goodput, the payload bytes the receiver reads per
// second, and compare it with what the shaped rate allows: the rate counts
// whole Ethernet frames, so a full segment of MSS payload bytes costs
// MSS + 66 bytes of rate (14 Ethernet, 20 IP, 20 TCP, 12 timestamp option):
// 1448 of 1514 bytes, 95.6%, with a 1500-byte MTU.
func payloadRate(bitsPerSec float64, mss int) float64 {
	return bitsPerSec * float64(mss) / float64(mss+tcpFrameOverhead)
}

// tcpFrameOverhead is the bytes of headers in every full-sized TCP data frame
// on the fabric: Ethernet 14, IPv4 20, TCP 20 plus the 12-byte timestamp
// option Linux sends by default.
const tcpFrameOverhead = 14 + 20 + 20 + 12

// TestShapingOneFlowReachesTheUplinkRate sends one flow across a rack uplink
// four times slower than the NICs and checks its goodput is within 5% of
// what the uplink's rate allows. Goodput is measured from the moment the
// receiver has 20% of the bytes to the end, leaving out slow start (over by
// then: at these round-trip times it lasts milliseconds) and the connection's
// set-up. While the flow runs, every queue must hold whole frames only: with
// segmentation offloads on, a queue of 100 "packets" would hold 64 KB
// aggregates, as measured when choosing the offload settings.
func TestShapingOneFlowReachesTheUplinkRate(t *testing.T) {
	needPrivilege(t)
	const uplink = 100e6
	f := build(t, Spec{Racks: 2, NodesPerRack: 2, NICBitsPerSec: 4 * uplink, UplinkBitsPerSec: uplink})
	// A flow at 100 Mbit/s needs the CPU for 8,000 frames a second at
	// once (it leaves a 2-core host about half idle on its own): with
	// other tests' un-niced work on both cores it was measured 8.7% short,
	// and alone within 2-3%. So the test waits for an idle host before
	// each measurement and fails only when three in a row miss; a wrong
	// rate misses every time.
	onIdleHost(t, false, func(attempt int) []string {
		stop := sampleBacklogs(t, f)
		fl := startFlow(f, 0, 2, 5001+attempt, 15<<20)
		<-fl.done
		stop()
		if fl.err != nil {
			t.Fatal(fl.err)
		}
		from, to := fl.marks[20], fl.marks[flowMarks]
		got := float64(fl.bytesBetween(from, to)) * 8 / to.Sub(from).Seconds()
		want := payloadRate(uplink, fl.mss)
		t.Logf("attempt %d: goodput %.2f Mbit/s over %v, the %.0f Mbit/s uplink allows %.2f (MSS %d): %+.2f%%",
			attempt, got/1e6, to.Sub(from).Round(time.Millisecond), uplink/1e6, want/1e6, fl.mss, 100*(got/want-1))
		if math.Abs(got/want-1) > 0.05 {
			return []string{fmt.Sprintf("one flow's goodput %.2f Mbit/s is not within 5%% of the %.2f Mbit/s the uplink allows", got/1e6, want/1e6)}
		}
		return nil
	})
}

// onIdleHost takes a measurement, which returns what missed (nothing when
// it is within bounds), on an idle host, at most three times: the fabric's
// rates need CPU the host gives at once. What the last one missed fails
// the test: the third's, or, if idleIsFinal, the first's during which the
// host stayed idle, since another process did not cause that miss.
func onIdleHost(t *testing.T, idleIsFinal bool, measure func(attempt int) (misses []string)) {
	t.Helper()
	// No chaos run loads the host meanwhile. Taken once: the lock is the
	// test's until it ends, and a second LockHost would wait for it.
	fabrictest.LockHost(t)
	for attempt := 1; ; attempt++ {
		waitIdle(t, 0.75, 3*time.Minute)
		before := readCPU(t)
		misses := measure(attempt)
		idle := readCPU(t).idleSince(before)
		t.Logf("attempt %d: host idle %.0f%%", attempt, 100*idle)
		if len(misses) == 0 {
			return
		}
		if (idleIsFinal && idle >= 0.75) || attempt == 3 {
			for _, m := range misses {
				t.Errorf("%s (measurement %d of at most 3; host %.0f%% idle during it)", m, attempt, 100*idle)
			}
			return
		}
	}
}

// sampleBacklogs reads f's counters every few milliseconds until stop is
// called and fails t if a queue ever holds more bytes than its packets could
// as full frames, which would mean it queues aggregates (with offloads on,
// 50 KB each). One frame of slack: the kernel's packet and byte backlogs of
// an HTB root were seen to differ by exactly one frame (40 frames' bytes in
// 39 packets), the frame HTB is handing to the device.
func sampleBacklogs(t *testing.T, f *Fabric) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			cs, err := f.Counters()
			if err != nil {
				t.Error(err)
				return
			}
			for _, c := range cs {
				if c.BacklogBytes > (c.BacklogPackets+1)*FrameBytes {
					t.Errorf("%s %s/%s queues %d bytes in %d packets: aggregates, not frames", c.Link.Kind, c.Link.Netns, c.Link.Iface, c.BacklogBytes, c.BacklogPackets)
					return
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// TestShapingTwoFlowsShareTheUplink sends two flows from two nodes of rack
// 0 to two nodes of rack 1 at once, through the same uplinks.
//
// Case "open-loop": each flow is a UDP stream offering 75% of the uplink, so
// the uplink's queue overflows and the link alone decides the shares; each
// must get within 10% of half of what the two got together, over 2 s after a
// 0.5 s warm-up (half of the total, not of the link's rate, so that a host
// short of CPU, which slows both, does not fail a test of sharing). This pins
// the emulated link: one FIFO drop-tail queue that favours no port.
//
// Case "tcp": two TCP CUBIC flows (set per socket: Linux's default
// algorithm and the testbed's; the host's BBR starves one of two flows at
// the fabric's microsecond base round trip, measured -78% in 2 of 12 runs
// at the default queue and -100% in 5 of 6 at a 20-frame queue), across a
// 20 Mbit/s uplink, the testbed's default scaled rate, for about 9 s.
// Together they must fill it within 10%, and neither may starve: each must
// get within 35% of an equal share of what the uplink carries. Two CUBIC
// flows at a drop-tail queue do not split a link evenly over 9 s (the
// "outcast" and phase effects of real switches): on an idle host, eleven
// runs ended 2.0, 2.6, 3.0, 3.7, 4.7, 10.5, 10.6, 11.1, 11.5, 13.7 and 26.5%
// from equal, so a tighter bound would fail on TCP's own noise, while the
// starvation it guards against (BBR, above) is 78-100%. Over 4 s at 100
// Mbit/s, Reno flows ended up to 15% from an equal share.
func TestShapingTwoFlowsShareTheUplink(t *testing.T) {
	needPrivilege(t)
	const uplink = 100e6
	t.Run("open-loop", func(t *testing.T) {
		f := build(t, Spec{Racks: 2, NodesPerRack: 2, NICBitsPerSec: 4 * uplink, UplinkBitsPerSec: uplink})
		const payload = 1472 // a full frame: 1472 + 8 UDP + 20 IP + 14 Ethernet = 1514
		got := udpShares(t, f, [][2]int{{0, 2}, {1, 3}}, 0.75*uplink, payload, 500*time.Millisecond, 2*time.Second)
		total := got[0] + got[1]
		t.Logf("together %.2f Mbit/s; the uplink carries %.2f of payload", total/1e6, payloadRateFor(uplink, payload, 42)/1e6)
		for i, g := range got {
			t.Logf("stream %d: %.2f Mbit/s, %+.1f%% from half of the two's total", i, g/1e6, 100*(g/(total/2)-1))
			if math.Abs(g/(total/2)-1) > 0.10 {
				t.Errorf("stream %d got %.2f Mbit/s of %.2f: not within 10%% of an equal share", i, g/1e6, total/1e6)
			}
		}
	})
	t.Run("tcp", func(t *testing.T) {
		const uplink = 20e6
		f := build(t, Spec{Racks: 2, NodesPerRack: 2, NICBitsPerSec: 4 * uplink, UplinkBitsPerSec: uplink})
		// TCP's shares need CPU the host can give at once: with both
		// cores of a 2-core host busy elsewhere, CUBIC flows here ended
		// 13-32% from equal in 3 of 4 runs (softirq work deferred behind
		// other processes drops bursts of one flow). So the case waits
		// for an idle host, and measures again if the host got busy
		// while a measurement missed.
		onIdleHost(t, true, func(attempt int) []string {
			shares, sum, link, span := twoTCPShares(t, f, uplink)
			var misses []string
			for i, got := range shares {
				t.Logf("attempt %d: flow %d: %.2f Mbit/s over %v, an equal share is %.2f: %+.1f%%", attempt, i, got/1e6, span.Round(time.Millisecond), link/2e6, 100*(got/(link/2)-1))
				if math.Abs(got/(link/2)-1) > 0.35 {
					misses = append(misses, fmt.Sprintf("flow %d got %.2f Mbit/s: not within 35%% of an equal share (%.2f): one flow starves the other", i, got/1e6, link/2e6))
				}
			}
			if math.Abs(sum/link-1) > 0.10 {
				misses = append(misses, fmt.Sprintf("the two flows together got %.2f Mbit/s, not within 10%% of the %.2f the uplink allows", sum/1e6, link/1e6))
			}
			return misses
		})
	})
}

// twoTCPShares sends 12 MiB from node 0 to 2 and from node 1 to 3 at once
// over CUBIC and returns each flow's payload rate in bits a second over
// the span when both ran (from when both had 10% to when the first
// ended), their sum, and what the uplink's payload rate allows.
func twoTCPShares(t *testing.T, f *Fabric, uplink float64) (shares []float64, sum, link float64, span time.Duration) {
	t.Helper()
	gate := make(chan struct{})
	a := startGatedFlow(f, 0, 2, 5001, 12<<20, "cubic", gate)
	b := startGatedFlow(f, 1, 3, 5001, 12<<20, "cubic", gate)
	for _, fl := range []*flow{a, b} {
		select {
		case <-fl.ready:
		case <-fl.done: // failed before it connected: reported below
		}
	}
	close(gate)
	<-a.done
	<-b.done
	for _, fl := range []*flow{a, b} {
		if fl.err != nil {
			t.Fatal(fl.err)
		}
	}
	from := maxTime(a.marks[10], b.marks[10])
	to := minTime(a.marks[flowMarks], b.marks[flowMarks])
	link = payloadRate(uplink, a.mss)
	for _, fl := range []*flow{a, b} {
		got := float64(fl.bytesBetween(from, to)) * 8 / to.Sub(from).Seconds()
		shares = append(shares, got)
		sum += got
	}
	return shares, sum, link, to.Sub(from)
}

// payloadRateFor is the payload rate a link of bitsPerSec carries in frames
// of payload plus overhead bytes.
func payloadRateFor(bitsPerSec float64, payload, overhead int) float64 {
	return bitsPerSec * float64(payload) / float64(payload+overhead)
}

// udpShares runs one open-loop UDP stream per pair (source, destination),
// each offering bitsPerSec of frames, and returns the payload rate each
// receiver got over measure after warmup.
func udpShares(t *testing.T, f *Fabric, pairs [][2]int, bitsPerSec float64, payload int, warmup, measure time.Duration) []float64 {
	t.Helper()
	var received []*atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() { close(stop); wg.Wait() }()
	for i, p := range pairs {
		pc, err := f.ListenPacket(p[1], "udp", netip.AddrPortFrom(f.NodeAddr(p[1]), uint16(6000+i)).String())
		if err != nil {
			t.Fatal(err)
		}
		n := new(atomic.Int64)
		received = append(received, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 2048)
			for {
				k, _, err := pc.ReadFrom(buf)
				if err != nil {
					return
				}
				n.Add(int64(k))
			}
		}()
		c, err := f.DialContext(context.Background(), p[0], "udp", pc.LocalAddr().String())
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pc.Close() // ends the receiver
			frame := float64(payload + 42)
			msg := make([]byte, payload)
			start := time.Now()
			sent := 0.0
			for {
				select {
				case <-stop:
					return
				default:
				}
				// Send what the offered rate allows by now, then sleep: the
				// average rate is exact whatever the sleeps' granularity.
				for due := time.Since(start).Seconds() * bitsPerSec / 8 / frame; sent < due; sent++ {
					c.Write(msg)
				}
				time.Sleep(200 * time.Microsecond)
			}
		}()
	}
	time.Sleep(warmup)
	before := make([]int64, len(received))
	for i, n := range received {
		before[i] = n.Load()
	}
	t0 := time.Now()
	time.Sleep(measure)
	el := time.Since(t0).Seconds()
	rates := make([]float64, len(received))
	for i, n := range received {
		rates[i] = float64(n.Load()-before[i]) * 8 / el
	}
	return rates
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// TestCountersMatchTheBytesSent checks the kernel's counters against the
// bytes the flows sent. Case "no loss at the uplink": one flow limited by its
// own NIC, so that nothing is dropped at or after the uplink and every
// payload byte crosses the uplink exactly once (the sender's own NIC queue
// may overflow while TCP starts, but a frame dropped there never reached the
// uplink and only its retransmission does). The uplink must then count the
// payload plus 66 header bytes per frame (see tcpFrameOverhead) within 0.1%;
// the rest is the handshake, the FIN and ARP, a few hundred bytes. Case
// "overflow": two flows into an uplink a quarter of their NICs' rate, so its
// queue overflows; every frame the two NICs sent must then be either carried
// by the uplink or counted as dropped there (ARP aside), which is what makes
// the drop counts trustworthy. Its queues hold 10 frames: with the default
// 100, a sender whose first burst overflowed its own NIC's queue went on in
// congestion avoidance and could finish 4 MiB before its window outgrew the
// uplink's queue, so no frame was dropped there. Ten frames is less than
// either flow's initial window, so the uplink's queue overflows in the
// first round trips whatever the host's scheduler does.
func TestCountersMatchTheBytesSent(t *testing.T) {
	needPrivilege(t)
	for _, c := range []struct {
		name        string
		nic, uplink float64
		flows       [][2]int
		bytes       int64
		queue       int
		wantDrops   bool
	}{
		{"no loss at the uplink", 40e6, 100e6, [][2]int{{0, 2}}, 4 << 20, 0, false},
		{"overflow", 200e6, 50e6, [][2]int{{0, 2}, {1, 3}}, 4 << 20, 10, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := build(t, Spec{Racks: 2, NodesPerRack: 2, NICBitsPerSec: c.nic, UplinkBitsPerSec: c.uplink, QueuePackets: c.queue})
			before, err := f.Counters()
			if err != nil {
				t.Fatal(err)
			}
			var fls []*flow
			for _, p := range c.flows {
				fls = append(fls, startFlow(f, p[0], p[1], 5001, c.bytes))
			}
			for _, fl := range fls {
				<-fl.done
				if fl.err != nil {
					t.Fatal(fl.err)
				}
			}
			after, err := f.Counters()
			if err != nil {
				t.Fatal(err)
			}
			// UplinkBytes is the fast path to the same counters; with the
			// flows done, nothing moves between the two reads.
			upB, downB, err := f.UplinkBytes()
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range after {
				if a.Link.Kind == UplinkUp && upB[a.Link.Rack] != a.Bytes || a.Link.Kind == UplinkDown && downB[a.Link.Rack] != a.Bytes {
					t.Errorf("UplinkBytes() = %v up, %v down; Counters says %s of rack %d carried %d", upB, downB, a.Link.Kind, a.Link.Rack, a.Bytes)
				}
			}
			delta := map[LinkKind]map[int]LinkCounters{}
			for i, a := range after {
				b := before[i]
				k := a.Link.Node
				if a.Link.Kind == UplinkUp || a.Link.Kind == UplinkDown {
					k = a.Link.Rack
				}
				if delta[a.Link.Kind] == nil {
					delta[a.Link.Kind] = map[int]LinkCounters{}
				}
				delta[a.Link.Kind][k] = LinkCounters{Link: a.Link, Bytes: a.Bytes - b.Bytes, Packets: a.Packets - b.Packets, Drops: a.Drops - b.Drops}
			}
			up := delta[UplinkUp][0]
			sentPackets := uint64(0)
			for _, p := range c.flows {
				sentPackets += delta[NICUp][p[0]].Packets
			}
			t.Logf("uplink up: %d bytes, %d packets, %d drops; the NICs sent %d packets", up.Bytes, up.Packets, up.Drops, sentPackets)
			if c.wantDrops != (up.Drops > 0) {
				t.Errorf("uplink up dropped %d frames; want drops: %v", up.Drops, c.wantDrops)
			}
			if d := int64(sentPackets) - int64(up.Packets+up.Drops); d < 0 || d > 4 {
				t.Errorf("the NICs sent %d frames but the uplink carried %d and dropped %d: %d unaccounted for (ARP allows up to 4)",
					sentPackets, up.Packets, up.Drops, d)
			}
			if c.wantDrops {
				return
			}
			for _, l := range []LinkCounters{up, delta[UplinkDown][1], delta[NICDown][2]} {
				if l.Drops > 0 {
					t.Fatalf("%s %s/%s dropped %d frames; this case needs no loss at or after the uplink", l.Link.Kind, l.Link.Netns, l.Link.Iface, l.Drops)
				}
			}
			mss := fls[0].mss
			frames := (c.bytes + int64(mss) - 1) / int64(mss)
			want := float64(c.bytes + frames*tcpFrameOverhead)
			t.Logf("uplink counted %d bytes, the payload in frames makes %.0f: %+.0f bytes", up.Bytes, want, float64(up.Bytes)-want)
			if r := float64(up.Bytes) / want; math.Abs(r-1) > 0.001 {
				t.Errorf("uplink counted %d bytes; %d payload bytes in %d-byte segments make %.0f bytes of frames: off by %+.3f%%, want within 0.1%%",
					up.Bytes, c.bytes, mss, want, 100*(r-1))
			}
		})
	}
}
