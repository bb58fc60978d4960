package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/testbed/microbench"
)

// cmdTestbedMicrobench measures TCP on the emulated network (package
// testbed/microbench) and prints the tables docs/fidelity.md keeps; -out
// writes every measurement as JSON. It needs root.
func cmdTestbedMicrobench(args []string, stdout, stderr io.Writer) error {
	d := microbench.Defaults()
	fs := commandFlags("testbed microbench", stderr,
		"usage: mrsched testbed microbench [flags]   (needs root)",
		"  single transfers, incast, short-behind-long transfers and two senders of different path lengths",
		"  over real TCP on the emulated network")
	nic := fs.Float64("nic-mbps", d.NICBitsPerSec/1e6, "each NIC's shaped rate, Mbit/s; the default is the validation scenarios' 250 Mbit/s at bandwidth scale 0.05")
	uplink := fs.Float64("uplink-mbps", d.UplinkBitsPerSec/1e6, "each rack uplink's shaped rate, Mbit/s; the default is 200 Mbit/s at bandwidth scale 0.05")
	queue := fs.Int("queue-packets", d.QueuePackets, "drop-tail queue of every shaped link, in frames")
	cc := fs.String("tcp-cc", defaultReplayCC, "the senders' TCP congestion control")
	repeats := fs.Int("repeats", d.Repeats, "times each single transfer and the RTT case are taken (the median is kept)")
	sizes := fs.String("sizes", "", "the single transfers' sizes: comma-separated bytes, with an optional K or M suffix (x 1024, x 1024²), e.g. 64K,1M,16M,256M; empty keeps the defaults (1K to 4M)")
	quick := fs.Bool("quick", false, "small sizes and fan-ins only (a check of the set-up, in seconds)")
	out := fs.String("out", "", "also write every measurement to this JSON file")
	quiet := fs.Bool("q", false, "no progress lines")
	if err := parseCommand(fs, args); err != nil {
		return err
	}
	d.NICBitsPerSec, d.UplinkBitsPerSec = *nic*1e6, *uplink*1e6
	d.QueuePackets, d.CongestionControl, d.Repeats = *queue, *cc, *repeats
	if *quick {
		d.Sizes, d.Fanins, d.Repeats, d.Shorts = []int64{1 << 10, 64 << 10, 256 << 10}, []int{1, 4}, 1, 2
		d.LongBytes, d.RTTBytes = 1<<20, 1<<20
	}
	if *sizes != "" {
		s, err := parseSizes(*sizes)
		if err != nil {
			return badUsage("-sizes: %v", err)
		}
		d.Sizes = s
	}
	if err := d.Validate(); err != nil {
		return err
	}
	if err := fabric.CheckPrivileges(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	progress := func(s string) { fmt.Fprintln(stderr, "microbench:", s) }
	if *quiet {
		progress = nil
	}
	res, err := microbench.Run(ctx, d, progress)
	if err != nil {
		if ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	writeMicrobench(stdout, res)
	if *out != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// parseSizes reads a -sizes list: comma-separated byte counts, each a
// positive integer with an optional K (x 1024) or M (x 1024²) suffix, none
// listed twice.
func parseSizes(list string) ([]int64, error) {
	var out []int64
	for i, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		num, mult := item, int64(1)
		switch {
		case strings.HasSuffix(item, "K"), strings.HasSuffix(item, "k"):
			num, mult = item[:len(item)-1], 1<<10
		case strings.HasSuffix(item, "M"), strings.HasSuffix(item, "m"):
			num, mult = item[:len(item)-1], 1<<20
		}
		n, err := strconv.ParseInt(num, 10, 64)
		switch {
		case item == "":
			return nil, fmt.Errorf("item %d is empty; want comma-separated sizes such as 64K,1M,16M,256M", i+1)
		case err != nil || n < 1:
			return nil, fmt.Errorf("item %d, %q: want a positive whole number of bytes, with an optional K or M suffix (e.g. 64K)", i+1, item)
		case n > math.MaxInt64/mult:
			return nil, fmt.Errorf("item %d, %q: more bytes than a transfer can count", i+1, item)
		case slices.Contains(out, n*mult):
			return nil, fmt.Errorf("item %d, %q: %d bytes are listed twice", i+1, item, n*mult)
		}
		out = append(out, n*mult)
	}
	return out, nil
}

// writeMicrobench prints the measurements as the tables of
// docs/fidelity.md.
func writeMicrobench(w io.Writer, r *microbench.Result) {
	c := r.Config
	fmt.Fprintf(w, "NICs %s, uplinks %s, drop-tail queues of %d frames, %s; hop delay %s (%s)\n\n",
		rateText(c.NICBitsPerSec), rateText(c.UplinkBitsPerSec), c.QueuePackets, c.CongestionControl,
		r.Fabric.HopDelayApplied, r.Fabric.DelayNote)
	fmt.Fprintf(w, "Single transfers (median of %d; fluid: the payload at the path's shaped rate):\n\n", c.Repeats)
	fmt.Fprintln(w, "| path | bytes | measured | fluid | measured / fluid | retransmits |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- |")
	for _, t := range r.Transfers {
		fmt.Fprintf(w, "| %s | %d | %.4f s | %.4f s | %.3f | %d |\n", t.Path, t.Bytes, t.MedianS, t.IdealS, t.MedianS/t.IdealS, t.Retransmits)
	}
	fmt.Fprintf(w, "\nA line through those of %d bytes and more: time = fixed + bytes / payload rate:\n", c.FitFromBytes)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| path | fixed cost | payload rate | bandwidth factor | worst miss of the line |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, f := range r.Fits {
		fmt.Fprintf(w, "| %s | %.2f ms | %s | %.4f | %.1f%% |\n", f.Path, 1e3*f.FixedS, rateText(8*f.PayloadBytesPerSec), f.BandwidthFactor, f.WorstResidualPct)
	}
	fmt.Fprintf(w, "\nIncast: n senders of %d bytes each into one NIC at once (fluid: all end at n x bytes / rate):\n\n", c.IncastBytes)
	fmt.Fprintln(w, "| senders | makespan | goodput (of the NIC) | fastest | slowest | queue drops | retransmits | senders a timeout late |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- |")
	for _, in := range r.Incast {
		fmt.Fprintf(w, "| %d | %.3f s | %.3f | %.3f s | %.3f s | %d | %d | %d |\n", in.Senders, in.MakespanS, in.Goodput, in.FastestS, in.SlowestS, in.Drops, in.Retransmits, in.Stalled)
	}
	sb := r.ShortBehindLong
	if len(sb.ShortS) == 0 {
		// At fast rates the long transfer ends before the first short one
		// starts, half a second in: there is nothing to report.
		fmt.Fprintf(w, "\nShort behind long: the %d-byte transfer ended before the first short transfer started; none met it\n", sb.LongBytes)
	} else {
		fmt.Fprintf(w, "\nShort behind long: %d short transfers of %d bytes into a NIC a %d-byte transfer fills: median %.4f s; max-min gives %.4f s (half the NIC), a full queue drains in %.4f s\n",
			len(sb.ShortS), sb.ShortBytes, sb.LongBytes, sb.MedianS, sb.FairS, sb.QueueS)
	}
	rt := r.RTTUnfairness
	fmt.Fprintf(w, "\nTwo senders of %d bytes each into one NIC at once, a near one in its rack and a far one across the core (near:far is their rates while both sent; max-min's is %.3g; smoothed RTTs at each connection's end):\n\n", rt.Bytes, rt.MaxMinRatio)
	fmt.Fprintln(w, "| repeat | near time | far time | near min RTT / smoothed | far min RTT / smoothed | first done | near:far | max-min's near:far |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- | --- | --- | --- |")
	for i, x := range rt.Repeats {
		ratio := "n/a (the other was starved or stalled)"
		if x.RatioKnown {
			ratio = fmt.Sprintf("%.3f", x.NearFarRatio)
		}
		fmt.Fprintf(w, "| %d | %.3f s | %.3f s | %s / %s | %s / %s | %s | %s | %.3g |\n", i+1, x.NearS, x.FarS,
			usText(x.NearMinRTTUs), usText(x.NearSRTTUs), usText(x.FarMinRTTUs), usText(x.FarSRTTUs), x.First, ratio, rt.MaxMinRatio)
	}
	fmt.Fprintf(w, "\nThe second to finish is taken to have run alone at its path's fitted payload rate (near %s, far %s).\n",
		rateText(8*rt.NearSoloBytesPerSec), rateText(8*rt.FarSoloBytesPerSec))
	if rt.RatiosKnown > 0 {
		fmt.Fprintf(w, "Median near:far %.3f over %d of %d repeats\n", rt.MedianRatio, rt.RatiosKnown, len(rt.Repeats))
	} else {
		fmt.Fprintf(w, "No repeat's near:far could be told\n")
	}
	fmt.Fprintf(w, "\n%.0f s of wall time\n", r.WallS)
}

// usText is a round trip given in microseconds, in the unit that reads
// best.
func usText(us uint32) string {
	if us >= 10000 {
		return fmt.Sprintf("%.1f ms", float64(us)/1e3)
	}
	if us >= 1000 {
		return fmt.Sprintf("%.2f ms", float64(us)/1e3)
	}
	return fmt.Sprintf("%d µs", us)
}
