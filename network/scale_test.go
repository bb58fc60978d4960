package network

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
)

// The netsim scale case: 30 racks of 20 nodes, 10 Gbit/s NICs and
// 50 Gbit/s rack uplinks (4:1), and 50,000 flows between random distinct
// nodes, log-uniform in size from 1 to 100 MB, starting uniformly in the
// first 5 s. BenchmarkNetsimScale replays it through the exact mode and
// through full solves; -netsim.scale writes it for `mrsched netsim`, so
// that the CLI can be timed on the same flows:
//
//	go test ./network -run NetsimScaleFile -netsim.scale /tmp/scale.json
//	mrsched netsim /tmp/scale.json
const (
	scaleRacks, scaleNodesPerRack = 30, 20
	scaleNICGbps, scaleUplinkGbps = 10, 50
	scaleFlows                    = 50000
	scaleSeed                     = 1
)

var netsimScaleOut = flag.String("netsim.scale", "", "write the netsim scale case, as `mrsched netsim` reads it, to this file")

// scaleFlow is one flow of the scale case.
type scaleFlow struct {
	src, dst     int
	bytes, start float64
}

// scaleCase draws the scale case's flows from seed.
func scaleCase(seed uint64) []scaleFlow {
	rng := rand.New(rand.NewPCG(seed, 0x6e657473))
	nodes := scaleRacks * scaleNodesPerRack
	flows := make([]scaleFlow, scaleFlows)
	for i := range flows {
		src := rng.IntN(nodes)
		dst := rng.IntN(nodes - 1)
		if dst >= src {
			dst++
		}
		bytes := math.Round(1e6 * math.Pow(100, rng.Float64()))
		flows[i] = scaleFlow{src, dst, bytes, 5 * rng.Float64()}
	}
	return flows
}

// scaleNetwork returns the scale case's link capacities and flows in the
// layout `mrsched netsim` builds (cluster.Topology): per node its disk,
// NIC up and NIC down, then per rack its uplink up and down; a flow
// crosses its source's NIC up, between racks the two uplinks, and its
// destination's NIC down.
func scaleNetwork(seed uint64) ([]float64, []TimedFlow) {
	nodes := scaleRacks * scaleNodesPerRack
	const mbit = 1e6 / 8
	caps := make([]float64, 0, 3*nodes+2*scaleRacks)
	for range nodes {
		caps = append(caps, 400e6, scaleNICGbps*1000*mbit, scaleNICGbps*1000*mbit)
	}
	for range scaleRacks {
		caps = append(caps, scaleUplinkGbps*1000*mbit, scaleUplinkGbps*1000*mbit)
	}
	var flows []TimedFlow
	for i, f := range scaleCase(seed) {
		p := []LinkID{LinkID(3*f.src + 1)}
		if rs, rd := f.src/scaleNodesPerRack, f.dst/scaleNodesPerRack; rs != rd {
			p = append(p, LinkID(3*nodes+2*rs), LinkID(3*nodes+2*rd+1))
		}
		p = append(p, LinkID(3*f.dst+2))
		flows = append(flows, TimedFlow{ID: "f" + strconv.Itoa(i), Path: p, Bytes: f.bytes, Start: f.start})
	}
	return caps, flows
}

// TestNetsimScaleFile writes the scale case for `mrsched netsim` when
// -netsim.scale names a file.
func TestNetsimScaleFile(t *testing.T) {
	if *netsimScaleOut == "" {
		t.Skip("-netsim.scale not given")
	}
	f, err := os.Create(*netsimScaleOut)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintf(w, "{\"racks\": %d, \"nodes_per_rack\": %d, \"nic_gbps\": %d, \"rack_uplink_gbps\": %d, \"flows\": [\n",
		scaleRacks, scaleNodesPerRack, scaleNICGbps, scaleUplinkGbps)
	for i, fl := range scaleCase(scaleSeed) {
		sep := ","
		if i == scaleFlows-1 {
			sep = ""
		}
		fmt.Fprintf(w, "{\"id\": \"f%d\", \"src\": %d, \"dst\": %d, \"bytes\": %s, \"start_s\": %s}%s\n", i, fl.src, fl.dst,
			strconv.FormatFloat(fl.bytes, 'g', -1, 64), strconv.FormatFloat(fl.start, 'g', -1, 64), sep)
	}
	fmt.Fprintln(w, "]}")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// replayWith is Replay on a network set up by setup.
func replayWith(caps []float64, flows []TimedFlow, setup func(*Network[int])) ([]FlowResult, float64, error) {
	replaySetup = setup
	defer func() { replaySetup = nil }()
	return Replay(caps, flows)
}

// BenchmarkNetsimScale replays the scale case, as `mrsched netsim` does,
// through the exact mode (exact) and through a full solve at every change
// (full, the exact mode before the incremental solver; one iteration
// takes minutes).
func BenchmarkNetsimScale(b *testing.B) {
	caps, flows := scaleNetwork(scaleSeed)
	for _, c := range solveModes {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := replayWith(caps, flows, func(n *Network[int]) { n.fullOnly = c.full }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
