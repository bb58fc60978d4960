package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mrsched/mrsched/testbed/fabric"
	"github.com/mrsched/mrsched/testbed/tcpreplay"
)

// autoBusiestLinkBitsPerSec is the rate the default -bandwidth-scale gives
// the file's fastest link. Measured on a 2-core host: one TCP flow through
// four shaped hops reached 99-100% of 50, 100 and 200 Mbit/s but 90% of
// 400 Mbit/s, where the host's CPU, not the link, was the limit; several
// links busy at once share that budget, so 100 Mbit/s leaves room.
const autoBusiestLinkBitsPerSec = 100e6

// defaultReplayCC is the senders' TCP congestion control: CUBIC, Linux's
// default since 2.6.19 and what the kernels of the clusters the papers
// measured ran. Hosts may default to another (BBR on this project's
// machines), so it is set on each socket.
const defaultReplayCC = "cubic"

// testbedNetsimOutput is what `mrsched testbed netsim` prints: the fields of
// `mrsched netsim`'s output, measured, with the model's beside them.
type testbedNetsimOutput struct {
	Flows     []testbedNetsimFlow `json:"flows"`
	MakespanS float64             `json:"makespan_s"`
	// The fluid model's makespan, and the testbed's error against it.
	ModelMakespanS   float64 `json:"model_makespan_s"`
	MakespanErrorPct float64 `json:"makespan_error_pct"`
	// Per-flow errors of the duration (finish - start) against the model's,
	// over flows with bytes.
	MeanAbsFlowErrorPct float64 `json:"mean_abs_flow_error_pct"`
	MaxAbsFlowErrorPct  float64 `json:"max_abs_flow_error_pct"`
	// Wall seconds = file seconds x TimeScale = byte_scale / bandwidth_scale.
	BandwidthScale float64 `json:"bandwidth_scale"`
	ByteScale      float64 `json:"byte_scale"`
	TimeScale      float64 `json:"time_scale"`
	WallS          float64 `json:"wall_s"`
	// CongestionControl is the senders' TCP congestion control.
	CongestionControl string `json:"congestion_control"`
	// Links are every shaped link's kernel counters (bytes as sent, at the
	// scaled sizes), Fabric what the emulated network used.
	Links  []fabric.LinkCounters `json:"links"`
	Fabric fabric.Report         `json:"fabric"`
}

type testbedNetsimFlow struct {
	ID           string  `json:"id"`
	FinishS      float64 `json:"finish_s"`
	ModelFinishS float64 `json:"model_finish_s"`
	// DurationErrorPct is 100 x (testbed duration / model duration - 1),
	// durations counted from the flow's start; absent for a flow of no bytes.
	DurationErrorPct *float64 `json:"duration_error_pct,omitempty"`
}

// cmdTestbedNetsim replays the flows of a `mrsched netsim` file as real TCP
// transfers between the nodes of an emulated network (package
// testbed/fabric) built from the file's topology, and prints the same JSON
// as `mrsched netsim`, in the file's seconds, with the fluid model's finish
// times beside the measured ones and the kernel's counters of every shaped
// link. Link rates are multiplied by -bandwidth-scale and flow sizes by
// -byte-scale, so wall time is file time x byte-scale / bandwidth-scale. It
// needs root.
func cmdTestbedNetsim(args []string, stdout, stderr io.Writer) error {
	fs := commandFlags("testbed netsim", stderr, "usage: mrsched testbed netsim [flags] FILE.json")
	bwScale := fs.Float64("bandwidth-scale", 0, "multiply every link rate by this; 0 picks the largest scale <= 1 that puts the fastest link at 100 Mbit/s or less")
	byteScale := fs.Float64("byte-scale", 1, "multiply every flow's bytes by this")
	queue := fs.Int("queue-packets", fabric.DefaultQueuePackets, "drop-tail queue of every shaped link, in frames")
	hopDelay := fs.Duration("hop-delay", 0, "delay added on every shaped link, where the kernel has netem")
	cc := fs.String("tcp-cc", defaultReplayCC, "the senders' TCP congestion control (one of the kernel's tcp_available_congestion_control)")
	// Accept the file before or after the flags.
	name, err := parseAroundOne(fs, args, fs.Usage)
	if err != nil {
		return err
	}
	switch {
	case !(*bwScale >= 0) || math.IsInf(*bwScale, 0):
		return fmt.Errorf("-bandwidth-scale %v: want a positive number, or 0 for automatic", *bwScale)
	case !(*byteScale > 0) || math.IsInf(*byteScale, 0):
		return fmt.Errorf("-byte-scale %v: want a positive number", *byteScale)
	case *queue < 1:
		return fmt.Errorf("-queue-packets %d: want at least 1", *queue)
	}
	if err := fabric.CheckPrivileges(); err != nil {
		return err
	}
	// The model first: cmdNetsim checks the file and gives the fluid
	// model's answer, which the measurement is set beside.
	var modelOut bytes.Buffer
	if err := cmdNetsim([]string{name}, &modelOut, stderr); err != nil {
		return err
	}
	var model netsimOutput
	if err := json.Unmarshal(modelOut.Bytes(), &model); err != nil {
		return fmt.Errorf("the network model's output: %v", err)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	var in netsimInput
	if err := json.Unmarshal(b, &in); err != nil { // cmdNetsim has checked it
		return fmt.Errorf("%s: %v", name, err)
	}
	busiest := math.Max(*in.NICGbps, *in.RackUplinkGbps) * 1e9
	if *bwScale == 0 {
		*bwScale = math.Min(1, autoBusiestLinkBitsPerSec/busiest)
	}
	timeScale := *byteScale / *bwScale
	fmt.Fprintf(stderr, "bandwidth scale %g (NICs %s, uplinks %s), byte scale %g: wall time = file time x %g\n",
		*bwScale, rateText(*in.NICGbps*1e9**bwScale), rateText(*in.RackUplinkGbps*1e9**bwScale), *byteScale, timeScale)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	f, err := fabric.Build(ctx, fabric.Spec{Racks: int(*in.Racks), NodesPerRack: int(*in.NodesPerRack),
		NICBitsPerSec: *in.NICGbps * 1e9 * *bwScale, UplinkBitsPerSec: *in.RackUplinkGbps * 1e9 * *bwScale,
		QueuePackets: *queue, HopDelay: *hopDelay})
	if err != nil {
		return err
	}
	defer f.Close()
	flows := make([]tcpreplay.Flow, len(in.Flows))
	for i, fl := range in.Flows {
		n := int64(math.Round(*fl.Bytes * *byteScale))
		if n == 0 && *fl.Bytes > 0 {
			n = 1
		}
		flows[i] = tcpreplay.Flow{ID: *fl.ID, Src: int(*fl.Src), Dst: int(*fl.Dst), Bytes: n,
			Start: time.Duration(startOf(fl) * timeScale * float64(time.Second))}
	}
	t0 := time.Now()
	res, err := tcpreplay.Run(ctx, f, flows, tcpreplay.Options{CongestionControl: *cc})
	if err != nil {
		return err
	}
	wall := time.Since(t0)
	counters, err := f.Counters()
	if err != nil {
		return err
	}
	out := testbedNetsimOutput{ModelMakespanS: model.MakespanS, BandwidthScale: *bwScale, ByteScale: *byteScale,
		TimeScale: timeScale, WallS: wall.Seconds(), CongestionControl: *cc, Links: counters, Fabric: f.Used()}
	out.Flows = []testbedNetsimFlow{}
	var sumAbs float64
	var nErr int
	for i, r := range res {
		start := startOf(in.Flows[i])
		finish := r.Finish.Seconds() / timeScale
		fl := testbedNetsimFlow{ID: r.ID, FinishS: finish, ModelFinishS: model.Flows[i].FinishS}
		if d := fl.ModelFinishS - start; *in.Flows[i].Bytes > 0 && d > 0 {
			e := 100 * ((finish-start)/d - 1)
			fl.DurationErrorPct = &e
			sumAbs += math.Abs(e)
			out.MaxAbsFlowErrorPct = math.Max(out.MaxAbsFlowErrorPct, math.Abs(e))
			nErr++
		}
		out.Flows = append(out.Flows, fl)
		out.MakespanS = math.Max(out.MakespanS, finish)
	}
	if nErr > 0 {
		out.MeanAbsFlowErrorPct = sumAbs / float64(nErr)
	}
	if model.MakespanS > 0 {
		out.MakespanErrorPct = 100 * (out.MakespanS/model.MakespanS - 1)
	}
	if err := f.Close(); err != nil {
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// rateText writes a rate in bits per second for people.
func rateText(bitsPerSec float64) string {
	switch {
	case bitsPerSec >= 1e9:
		return fmt.Sprintf("%.4g Gbit/s", bitsPerSec/1e9)
	case bitsPerSec >= 1e6:
		return fmt.Sprintf("%.4g Mbit/s", bitsPerSec/1e6)
	}
	return fmt.Sprintf("%.4g kbit/s", bitsPerSec/1e3)
}

// startOf is a checked flow's start time (absent means 0).
func startOf(f netsimFlow) float64 {
	if f.StartS == nil {
		return 0
	}
	return *f.StartS
}
