// Package microbench measures, on the testbed's emulated network, what TCP
// does that a fluid max-min model of the network leaves out: the fixed cost
// of a transfer and the share of a link's rate its payload gets (single
// transfers of growing size), what many senders into one NIC lose
// (incast: goodput, queue drops, retransmissions), what a short
// transfer pays behind a long one on a shared link (the queue the long
// flow keeps full), and how two senders of different path lengths split
// the NIC they share (RTT unfairness). Each case runs real TCP
// connections between the nodes of a fabric (package fabric) with the
// congestion control asked for, through package tcpreplay.
//
// The rates default to those the validation scenarios shape their links
// to, so the figures describe the transfers the validations make; every
// figure is measured, none is assumed.
package microbench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/testbed/tcpreplay"
)

// Config says what to measure and on what links.
type Config struct {
	// NICBitsPerSec and UplinkBitsPerSec are the shaped rates, as the
	// testbed runs them (already multiplied by the bandwidth scale).
	NICBitsPerSec, UplinkBitsPerSec float64
	// QueuePackets is every shaped link's drop-tail queue, in frames.
	QueuePackets int
	// CongestionControl is the senders' TCP congestion control.
	CongestionControl string
	// Sizes are the single transfers' sizes, bytes; Repeats how many times
	// each is taken (the median is kept).
	Sizes   []int64
	Repeats int
	// FitFromBytes is the smallest size the line is fitted through: below
	// a few frames the shaper's token bucket lets a transfer through at
	// the veth's speed, which is no property of TCP.
	FitFromBytes int64
	// Fanins are the incast cases' numbers of senders into one NIC, each
	// sending IncastBytes at once.
	Fanins      []int
	IncastBytes int64
	// ShortBytes is a short transfer sent behind a long one of LongBytes
	// on the receiver's NIC, Shorts times, ShortGap apart.
	ShortBytes, LongBytes int64
	Shorts                int
	ShortGap              time.Duration
	// RTTBytes is what each of two senders, one in the receiver's rack and
	// one across the core, sends into one NIC at once, Repeats times.
	RTTBytes int64
}

// Transfer is one single-transfer size on one path.
type Transfer struct {
	// Path is "rack" (two NIC hops in one rack) or "cross-rack" (NIC,
	// uplink, uplink, NIC).
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	// Seconds is each repeat's time from connect to the last byte read;
	// MedianS their median.
	Seconds []float64 `json:"seconds"`
	MedianS float64   `json:"median_s"`
	// IdealS is the payload over the path's slowest shaped rate: what a
	// fluid model without fixed costs gives it.
	IdealS      float64 `json:"ideal_s"`
	Retransmits uint32  `json:"retransmits"`
}

// Fit is a straight line through one path's medians: a transfer of S
// bytes takes FixedS + S / PayloadBytesPerSec.
type Fit struct {
	Path               string  `json:"path"`
	FixedS             float64 `json:"fixed_s"`
	PayloadBytesPerSec float64 `json:"payload_bytes_per_sec"`
	// BandwidthFactor is the payload rate over the path's shaped rate
	// (which counts Ethernet frames).
	BandwidthFactor float64 `json:"bandwidth_factor"`
	// WorstResidualPct is the largest relative miss of the line over the
	// sizes, which shows a ramp the line leaves out.
	WorstResidualPct float64 `json:"worst_residual_pct"`
}

// Incast is one fan-in into one NIC.
type Incast struct {
	Senders   int   `json:"senders"`
	BytesEach int64 `json:"bytes_each"`
	// MakespanS is from the first connect to the last byte read; Goodput
	// the payload over that time as a fraction of the NIC's rate.
	MakespanS float64 `json:"makespan_s"`
	Goodput   float64 `json:"goodput"`
	// SlowestS and FastestS are the senders' own transfer times.
	SlowestS float64 `json:"slowest_s"`
	FastestS float64 `json:"fastest_s"`
	// Drops are the frames the receiver's NIC queue dropped; Retransmits
	// the segments the senders sent again; Stalled how many senders'
	// transfers took longer than a retransmission timeout (200 ms) past
	// the fluid model's time, the mark of a timeout.
	Drops       uint64 `json:"drops"`
	Retransmits uint64 `json:"retransmits"`
	Stalled     int    `json:"stalled"`
}

// ShortBehindLong is short transfers sent while a long one fills the
// receiver's NIC.
type ShortBehindLong struct {
	ShortBytes int64 `json:"short_bytes"`
	LongBytes  int64 `json:"long_bytes"`
	// ShortS are the short transfers' times; MedianS their median.
	ShortS  []float64 `json:"short_s"`
	MedianS float64   `json:"median_s"`
	// FairS is the time max-min gives a short transfer sharing the NIC
	// with the long one: the payload at half the NIC's rate.
	FairS float64 `json:"fair_s"`
	// QueueS is a full queue of the NIC drained at its rate: what a short
	// transfer waits behind a long flow that keeps the queue full.
	QueueS float64 `json:"queue_s"`
}

// RTTUnfairness is two senders of different path lengths sending the same
// bytes into one NIC at once: a near one in the receiver's rack (its
// data crosses two shaped links: its NIC and the receiver's) and a far one
// in the other rack (four: its NIC, both racks' uplinks, the receiver's
// NIC). The receiver's NIC is the bottleneck both share when half its rate
// is no more than an uplink's. Max-min splits that NIC evenly whatever
// the round trips; Reno-like congestion control gives each sender a rate
// about inversely proportional to its round trip.
//
// A second pairing, two cross-rack senders of different path lengths,
// is not taken: the fabric is two-tier under one core, so every
// cross-rack path crosses the same four shaped links and no two differ.
type RTTUnfairness struct {
	Bytes int64 `json:"bytes"`
	// MaxMinRatio is the near:far ratio of rates max-min gives: 1 while
	// half the NIC fits through an uplink, else the far sender is held to
	// the uplink and the near one takes the rest.
	MaxMinRatio float64 `json:"max_min_ratio"`
	// NearSoloBytesPerSec and FarSoloBytesPerSec are each sender's payload
	// rate alone on its path, from the single transfers' fits: what the
	// split of each repeat takes the second finisher's time alone at.
	NearSoloBytesPerSec float64     `json:"near_solo_bytes_per_sec"`
	FarSoloBytesPerSec  float64     `json:"far_solo_bytes_per_sec"`
	Repeats             []RTTRepeat `json:"repeats"`
	// MedianRatio is the median NearFarRatio of the repeats whose ratio
	// is known (RatiosKnown of them); 0 when none is.
	MedianRatio float64 `json:"median_ratio"`
	RatiosKnown int     `json:"ratios_known"`
}

// RTTRepeat is one take of the two senders.
type RTTRepeat struct {
	// NearS and FarS are each sender's time from connect to its last byte
	// read.
	NearS float64 `json:"near_s"`
	FarS  float64 `json:"far_s"`
	// The senders' minimum and smoothed round trips, microseconds, as
	// their kernels had them when the receiver had every byte (package
	// tcpreplay): the minimum over the connection, the smoothed one at its
	// end.
	NearMinRTTUs    uint32 `json:"near_min_rtt_us"`
	NearSRTTUs      uint32 `json:"near_srtt_us"`
	FarMinRTTUs     uint32 `json:"far_min_rtt_us"`
	FarSRTTUs       uint32 `json:"far_srtt_us"`
	NearRetransmits uint32 `json:"near_retransmits"`
	FarRetransmits  uint32 `json:"far_retransmits"`
	Split
}

// Result is every case's measurement and what the fabric was.
type Result struct {
	Config          Config          `json:"config"`
	Transfers       []Transfer      `json:"transfers"`
	Fits            []Fit           `json:"fits"`
	Incast          []Incast        `json:"incast"`
	ShortBehindLong ShortBehindLong `json:"short_behind_long"`
	RTTUnfairness   RTTUnfairness   `json:"rtt_unfairness"`
	// Fabric is the emulated network of the last case (delay, qdiscs,
	// offloads, congestion control).
	Fabric fabric.Report `json:"fabric"`
	WallS  float64       `json:"wall_s"`
}

// Defaults returns the cases as the validation scenarios see their links:
// 250 Mbit/s NICs and 200 Mbit/s uplinks at bandwidth scale 0.05.
func Defaults() Config {
	return Config{
		NICBitsPerSec: 250e6 * 0.05, UplinkBitsPerSec: 200e6 * 0.05,
		QueuePackets: fabric.DefaultQueuePackets, CongestionControl: "cubic",
		Sizes:   []int64{1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20},
		Repeats: 3, FitFromBytes: 64 << 10,
		Fanins: []int{1, 2, 4, 8, 16, 30}, IncastBytes: 64 << 10,
		ShortBytes: 10 << 10, LongBytes: 4 << 20, Shorts: 10, ShortGap: 150 * time.Millisecond,
		// As long as short-behind-long's long flow: at these rates the two
		// share the NIC for 5.3 to 5.7 s (docs/fidelity.md), long against
		// the queue's round trip of up to 0.1 s.
		RTTBytes: 4 << 20,
	}
}

// Validate reports the first setting that cannot be measured.
func (c Config) Validate() error {
	switch {
	case !(c.NICBitsPerSec > 0) || !(c.UplinkBitsPerSec > 0) || math.IsInf(c.NICBitsPerSec, 0) || math.IsInf(c.UplinkBitsPerSec, 0):
		return fmt.Errorf("link rates %v and %v bit/s: want positive rates", c.NICBitsPerSec, c.UplinkBitsPerSec)
	case c.QueuePackets < 1:
		return fmt.Errorf("queue of %d frames: want at least 1", c.QueuePackets)
	case countFrom(c.Sizes, c.FitFromBytes) < 2:
		return fmt.Errorf("%d transfer sizes of at least %d bytes: want at least 2 to fit a line", countFrom(c.Sizes, c.FitFromBytes), c.FitFromBytes)
	case c.Repeats < 1:
		return fmt.Errorf("%d repeats: want at least 1", c.Repeats)
	case c.IncastBytes < 1 || c.ShortBytes < 1 || c.LongBytes < 1 || c.Shorts < 1:
		return fmt.Errorf("incast, short and long transfers need at least one byte and one short transfer")
	case c.RTTBytes < 1:
		return fmt.Errorf("RTT case of %d bytes a sender: want at least one byte", c.RTTBytes)
	}
	for _, s := range c.Sizes {
		if s < 1 {
			return fmt.Errorf("transfer size %d: want at least one byte", s)
		}
	}
	for _, n := range c.Fanins {
		if n < 1 || n > 60 {
			return fmt.Errorf("fan-in %d: want 1 to 60 senders", n)
		}
	}
	return nil
}

// Run takes every case, one fabric a case, each torn down before the
// next; progress, if not nil, is told what runs.
func Run(ctx context.Context, c Config, progress func(string)) (*Result, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	say := func(format string, args ...any) {
		if progress != nil {
			progress(fmt.Sprintf(format, args...))
		}
	}
	t0 := time.Now()
	res := &Result{Config: c}
	opt := tcpreplay.Options{CongestionControl: c.CongestionControl}

	// Single transfers: nodes 0 and 1 share rack 0, node 2 is in rack 1.
	err := withFabric(ctx, c, 2, 2, res, func(f *fabric.Fabric) error {
		for _, path := range []struct {
			name string
			dst  int
			rate float64
		}{{"rack", 1, c.NICBitsPerSec}, {"cross-rack", 2, min(c.NICBitsPerSec, c.UplinkBitsPerSec)}} {
			// One transfer untimed first: neighbour discovery and the
			// first connection's set-up belong to no transfer size.
			if _, err := tcpreplay.Run(ctx, f, []tcpreplay.Flow{{ID: "warm-up", Src: 0, Dst: path.dst, Bytes: 1 << 10}}, opt); err != nil {
				return err
			}
			for _, size := range c.Sizes {
				say("a %d-byte transfer, %s", size, path.name)
				tr := Transfer{Path: path.name, Bytes: size, IdealS: float64(size) * 8 / path.rate}
				for range c.Repeats {
					r, err := tcpreplay.Run(ctx, f, []tcpreplay.Flow{{ID: "t", Src: 0, Dst: path.dst, Bytes: size}}, opt)
					if err != nil {
						return err
					}
					tr.Seconds = append(tr.Seconds, (r[0].Finish - r[0].Start).Seconds())
					tr.Retransmits += r[0].Retransmits
				}
				tr.MedianS = median(tr.Seconds)
				res.Transfers = append(res.Transfers, tr)
			}
			var fit []Transfer
			for _, t := range res.Transfers[len(res.Transfers)-len(c.Sizes):] {
				if t.Bytes >= c.FitFromBytes {
					fit = append(fit, t)
				}
			}
			res.Fits = append(res.Fits, fitLine(path.name, path.rate, fit))
		}
		say("two senders of different path lengths into one NIC")
		// Each RTT sender left alone runs at its path's payload rate as
		// the single transfers just measured it: the rack path's for the
		// near one, the cross-rack path's for the far one.
		rtt, err := rttCase(ctx, f, c, opt, soloRate(res.Fits[0], c.NICBitsPerSec), soloRate(res.Fits[1], min(c.NICBitsPerSec, c.UplinkBitsPerSec)))
		res.RTTUnfairness = rtt
		return err
	})
	if err != nil {
		return nil, err
	}

	// Incast and short-behind-long: one rack, node 0 receives.
	most := 2
	for _, n := range c.Fanins {
		most = max(most, n)
	}
	err = withFabric(ctx, c, 1, most+1, res, func(f *fabric.Fabric) error {
		warm := make([]tcpreplay.Flow, most)
		for i := range warm {
			warm[i] = tcpreplay.Flow{ID: fmt.Sprint("warm-up", i+1), Src: i + 1, Dst: 0, Bytes: 1 << 10, Start: time.Duration(i) * 10 * time.Millisecond}
		}
		if _, err := tcpreplay.Run(ctx, f, warm, opt); err != nil {
			return err
		}
		for _, n := range c.Fanins {
			say("%d senders into one NIC", n)
			flows := make([]tcpreplay.Flow, n)
			for i := range flows {
				flows[i] = tcpreplay.Flow{ID: fmt.Sprint("s", i+1), Src: i + 1, Dst: 0, Bytes: c.IncastBytes}
			}
			before, err := nicDownDrops(f, 0)
			if err != nil {
				return err
			}
			r, err := tcpreplay.Run(ctx, f, flows, opt)
			if err != nil {
				return err
			}
			after, err := nicDownDrops(f, 0)
			if err != nil {
				return err
			}
			res.Incast = append(res.Incast, incastOf(n, c.IncastBytes, c.NICBitsPerSec, r, after-before))
		}
		say("short transfers behind a long one")
		flows := []tcpreplay.Flow{{ID: "long", Src: 1, Dst: 0, Bytes: c.LongBytes}}
		for i := range c.Shorts {
			// After the long flow has filled the queue: half a second in.
			flows = append(flows, tcpreplay.Flow{ID: fmt.Sprint("short", i), Src: 2, Dst: 0, Bytes: c.ShortBytes,
				Start: 500*time.Millisecond + time.Duration(i)*c.ShortGap})
		}
		r, err := tcpreplay.Run(ctx, f, flows, opt)
		if err != nil {
			return err
		}
		sb := ShortBehindLong{ShortBytes: c.ShortBytes, LongBytes: c.LongBytes,
			FairS:  float64(c.ShortBytes) * 8 / (c.NICBitsPerSec / 2),
			QueueS: float64(c.QueuePackets) * fullFrameBytes * 8 / c.NICBitsPerSec}
		for _, x := range r[1:] {
			if x.Start < r[0].Finish { // only those that met the long flow
				sb.ShortS = append(sb.ShortS, (x.Finish - x.Start).Seconds())
			}
		}
		if len(sb.ShortS) > 0 {
			sb.MedianS = median(sb.ShortS)
		}
		res.ShortBehindLong = sb
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.WallS = time.Since(t0).Seconds()
	return res, nil
}

// fullFrameBytes is a full-sized Ethernet frame as the shapers count it
// (1,500 bytes of IP packet and a 14-byte header).
const fullFrameBytes = 1514

// payloadFraction is the share of a shaped link's rate a lone TCP flow's
// payload gets: 1,448 bytes of payload (a 1,500-byte MTU less 20 bytes of
// IP header and 32 of TCP header with timestamps) in each full frame. The
// single transfers measured 0.943 to 0.956 of the shaped rate at the
// default rates (docs/fidelity.md).
const payloadFraction = 1448.0 / fullFrameBytes

// soloRate is the payload rate, bytes/s, of a sender alone on a path: the
// fitted line's slope, which is what each further byte costs once a
// connection is set up and its window open (the state of a sender whose
// companion has just finished). Measured rather than taken from the
// shaped rate because the host, not the shaper, can be the limit: at
// 250 Mbit/s single transfers got 0.57 to 0.75 of the shaped rate
// (docs/fidelity.md). A fit
// with no positive slope falls back on the shaped rate (bits/s) times
// payloadFraction.
func soloRate(fit Fit, shapedBitsPerSec float64) float64 {
	if fit.PayloadBytesPerSec > 0 {
		return fit.PayloadBytesPerSec
	}
	return payloadFraction * shapedBitsPerSec / 8
}

// Nodes of the two-rack fabric of the single transfers and the RTT case:
// nodes 0 and 1 share rack 0, node 2 is in rack 1.
const (
	receiver = 0
	nearNode = 1
	farNode  = 2
)

// rttCase sends c.RTTBytes from a near and a far sender into the
// receiver's NIC at once, c.Repeats times, on the two-rack fabric f;
// nearSolo and farSolo are each sender's payload rate alone, bytes/s.
func rttCase(ctx context.Context, f *fabric.Fabric, c Config, opt tcpreplay.Options, nearSolo, farSolo float64) (RTTUnfairness, error) {
	rt := RTTUnfairness{Bytes: c.RTTBytes, MaxMinRatio: maxMinRatio(c.NICBitsPerSec, c.UplinkBitsPerSec),
		NearSoloBytesPerSec: nearSolo, FarSoloBytesPerSec: farSolo}
	// The senders' first packets to the receiver wait for ARP; neither
	// transfer should.
	warm := []tcpreplay.Flow{
		{ID: "warm-up near", Src: nearNode, Dst: receiver, Bytes: 1 << 10},
		{ID: "warm-up far", Src: farNode, Dst: receiver, Bytes: 1 << 10},
	}
	if _, err := tcpreplay.Run(ctx, f, warm, opt); err != nil {
		return rt, err
	}
	var ratios []float64
	for range c.Repeats {
		r, err := tcpreplay.Run(ctx, f, []tcpreplay.Flow{
			{ID: "near", Src: nearNode, Dst: receiver, Bytes: c.RTTBytes},
			{ID: "far", Src: farNode, Dst: receiver, Bytes: c.RTTBytes},
		}, opt)
		if err != nil {
			return rt, err
		}
		near, farR := r[0], r[1]
		// Both connect at the replay's start, within a millisecond of each
		// other; the shared span is timed from the earlier connect.
		origin := min(near.Start, farR.Start)
		rep := RTTRepeat{
			NearS: (near.Finish - near.Start).Seconds(), FarS: (farR.Finish - farR.Start).Seconds(),
			NearMinRTTUs: near.MinRTTMicros, NearSRTTUs: near.SRTTMicros,
			FarMinRTTUs: farR.MinRTTMicros, FarSRTTUs: farR.SRTTMicros,
			NearRetransmits: near.Retransmits, FarRetransmits: farR.Retransmits,
			Split: splitShared(float64(c.RTTBytes), (near.Finish - origin).Seconds(), (farR.Finish - origin).Seconds(), nearSolo, farSolo),
		}
		if rep.RatioKnown {
			ratios = append(ratios, rep.NearFarRatio)
		}
		rt.Repeats = append(rt.Repeats, rep)
	}
	rt.RatiosKnown = len(ratios)
	if len(ratios) > 0 {
		rt.MedianRatio = median(ratios)
	}
	return rt, nil
}

// maxMinRatio is the near:far ratio of the rates max-min gives the RTT
// case's senders: the far one half the receiver's NIC unless its uplink
// holds it to less, the near one what is left of the NIC.
func maxMinRatio(nic, uplink float64) float64 {
	far := min(uplink, nic/2)
	return (nic - far) / far
}

// Split is how two senders of the same bytes shared a link while both
// sent.
type Split struct {
	// First is the sender that finished first, "near" or "far".
	First string `json:"first"`
	// OtherBytes is the payload the other sender had delivered when the
	// first finished (derived: see splitShared).
	OtherBytes float64 `json:"other_bytes"`
	// NearShare is the near sender's part of the payload both moved while
	// both sent (max-min, at an even split: 0.5); NearFarRatio the near
	// sender's rate over the far one's over that span (max-min: 1).
	NearShare    float64 `json:"near_share"`
	NearFarRatio float64 `json:"near_far_ratio"`
	// RatioKnown is false when the derivation leaves the other sender no
	// bytes while both sent: its time alone was at least its whole
	// transfer at its path's rate, so it was starved while both sent or
	// stalled (a retransmission timeout) after, and finish times cannot
	// tell which. NearShare is then 1 or 0 and NearFarRatio 0.
	RatioKnown bool `json:"ratio_known"`
}

// splitShared derives how two senders of bytes each, which began
// together and finished nearS and farS seconds later, split their shared
// link while both sent. The first to finish moved all its bytes in that
// span. What the other had moved by then is not measured; it is what is
// left once its time alone (from the first's finish to its own) is taken
// at its path's payload rate alone (nearSolo or farSolo, bytes/s).
//
// That assumes the sender left alone runs at once at the rate the single
// transfers measured on its path. Its window, grown while it shared,
// holds its part of the bottleneck's queue, far more than its path
// carries at the base round trip of tens of microseconds, so the link
// does not wait for the window to grow. Deriving the link's rate from the
// total instead (2 x bytes over the last finish, the link taken as full
// throughout) fails where the far sender is left alone: its uplink is
// slower than the NIC, so the NIC no longer runs full, and the far
// sender's bytes while sharing would be undercounted, overstating the
// near sender's lead.
func splitShared(bytes, nearS, farS, nearSolo, farSolo float64) Split {
	first, t1, t2, soloOther := "near", nearS, farS, farSolo
	if farS < nearS {
		first, t1, t2, soloOther = "far", farS, nearS, nearSolo
	}
	other := bytes - soloOther*(t2-t1)
	s := Split{First: first}
	if other <= 0 {
		// The first finisher had the link to itself.
		if first == "near" {
			s.NearShare = 1
		}
		return s
	}
	s.OtherBytes, s.RatioKnown = other, true
	near, far := bytes, other
	if first == "far" {
		near, far = other, bytes
	}
	s.NearShare, s.NearFarRatio = near/(near+far), near/far
	return s
}

// withFabric builds a fabric of racks x perRack nodes, runs do on it, and
// tears it down, reporting an error of the teardown too.
func withFabric(ctx context.Context, c Config, racks, perRack int, res *Result, do func(*fabric.Fabric) error) (err error) {
	f, err := fabric.Build(ctx, fabric.Spec{Racks: racks, NodesPerRack: perRack,
		NICBitsPerSec: c.NICBitsPerSec, UplinkBitsPerSec: c.UplinkBitsPerSec, QueuePackets: c.QueuePackets})
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	res.Fabric = f.Used()
	return do(f)
}

// nicDownDrops is the frames node n's receiving NIC link has dropped.
func nicDownDrops(f *fabric.Fabric, n int) (uint64, error) {
	cs, err := f.Counters()
	if err != nil {
		return 0, err
	}
	for _, c := range cs {
		if c.Link.Kind == fabric.NICDown && c.Link.Node == n {
			return c.Drops, nil
		}
	}
	return 0, fmt.Errorf("no receiving NIC link for node %d", n)
}

// rtoS is Linux's minimum retransmission timeout (TCP_RTO_MIN, 200 ms): a
// transfer this much slower than its fluid time met one.
const rtoS = 0.2

func incastOf(n int, each int64, nicBitsPerSec float64, r []tcpreplay.Result, drops uint64) Incast {
	in := Incast{Senders: n, BytesEach: each, Drops: drops, FastestS: math.Inf(1)}
	var first, last time.Duration = r[0].Start, 0
	for _, x := range r {
		first, last = min(first, x.Start), max(last, x.Finish)
		d := (x.Finish - x.Start).Seconds()
		in.SlowestS, in.FastestS = max(in.SlowestS, d), min(in.FastestS, d)
		in.Retransmits += uint64(x.Retransmits)
	}
	in.MakespanS = (last - first).Seconds()
	// Max-min: every sender gets 1/n of the NIC, so all end at n x each.
	fluid := float64(n) * float64(each) * 8 / nicBitsPerSec
	for _, x := range r {
		if (x.Finish - x.Start).Seconds() > fluid+rtoS {
			in.Stalled++
		}
	}
	if in.MakespanS > 0 {
		in.Goodput = float64(n) * float64(each) * 8 / in.MakespanS / nicBitsPerSec
	}
	return in
}

// fitLine fits time = fixed + bytes / rate through the transfers' medians
// by least squares; rate is the path's shaped (frame) rate, bits/s.
func fitLine(path string, rate float64, ts []Transfer) Fit {
	var sx, sy, sxx, sxy float64
	for _, t := range ts {
		x, y := float64(t.Bytes), t.MedianS
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	n := float64(len(ts))
	slope := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	fixed := (sy - slope*sx) / n
	f := Fit{Path: path, FixedS: fixed}
	if slope > 0 {
		f.PayloadBytesPerSec = 1 / slope
		f.BandwidthFactor = f.PayloadBytesPerSec * 8 / rate
	}
	for _, t := range ts {
		if t.MedianS > 0 {
			f.WorstResidualPct = max(f.WorstResidualPct, 100*math.Abs(fixed+slope*float64(t.Bytes)-t.MedianS)/t.MedianS)
		}
	}
	return f
}

// countFrom is how many sizes are at least from.
func countFrom(sizes []int64, from int64) int {
	n := 0
	for _, s := range sizes {
		if s >= from {
			n++
		}
	}
	return n
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
