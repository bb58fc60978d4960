package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/network"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/traces"
	"github.com/mrsched/mrsched/workload"
)

func cmdPolicies(args []string, w, stderr io.Writer) error {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "usage: mrsched policies\n  lists the registered policies, one a line: name and summary")
		if isHelp(args[0]) {
			return flag.ErrHelp
		}
		return errUsage
	}
	for _, e := range sched.Policies() {
		fmt.Fprintf(w, "%-16s %s\n", e.Name, e.Summary)
	}
	return nil
}

// netsimInput is the JSON `mrsched netsim` reads.
type netsimInput struct {
	Racks          int     `json:"racks"`
	NodesPerRack   int     `json:"nodes_per_rack"`
	NICGbps        float64 `json:"nic_gbps"`
	RackUplinkGbps float64 `json:"rack_uplink_gbps"`
	Flows          []struct {
		ID     string   `json:"id"`
		Src    *int     `json:"src"`
		Dst    *int     `json:"dst"`
		Bytes  *float64 `json:"bytes"`
		StartS float64  `json:"start_s"`
	} `json:"flows"`
}

type netsimOutput struct {
	Flows []struct {
		ID      string  `json:"id"`
		FinishS float64 `json:"finish_s"`
	} `json:"flows"`
	MakespanS float64 `json:"makespan_s"`
}

// cmdNetsim runs the network model alone. Node i sits in rack i /
// nodes_per_rack; a flow crosses its source's NIC up and its destination's
// NIC down, and, between racks, the source rack's uplink up and the
// destination rack's uplink down. Disks are not modelled here.
func cmdNetsim(args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 || isHelp(args[0]) {
		fmt.Fprintln(stderr, "usage: mrsched netsim FILE.json\n  the flow-level network model alone: each flow's finish time (examples/netsim-two-racks.json)")
		if len(args) > 0 && isHelp(args[0]) {
			return flag.ErrHelp
		}
		return errUsage
	}
	name := args[0]
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var in netsimInput
	if err := dec.Decode(&in); err != nil {
		return fmt.Errorf("%s: %v", name, jsonErr(b, err))
	}
	switch {
	case in.Racks <= 0:
		return fmt.Errorf("%s: field \"racks\": must be positive", name)
	case in.NodesPerRack <= 0:
		return fmt.Errorf("%s: field \"nodes_per_rack\": must be positive", name)
	case !(in.NICGbps > 0):
		return fmt.Errorf("%s: field \"nic_gbps\": must be positive", name)
	case !(in.RackUplinkGbps > 0):
		return fmt.Errorf("%s: field \"rack_uplink_gbps\": must be positive", name)
	}
	topo, err := cluster.New(cluster.Config{Racks: in.Racks, NodesPerRack: in.NodesPerRack,
		NICMbps: in.NICGbps * 1000, RackUplinkMbps: in.RackUplinkGbps * 1000, MapSlots: 1, ReduceSlots: 1, Replication: 1})
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	nodes := topo.NumNodes()
	flows := make([]network.TimedFlow, len(in.Flows))
	seen := map[string]bool{}
	for i, f := range in.Flows {
		where := fmt.Sprintf("%s: flows[%d]", name, i)
		switch {
		case f.ID == "":
			return fmt.Errorf("%s: field \"id\": required", where)
		case seen[f.ID]:
			return fmt.Errorf("%s: field \"id\": %q is used twice", where, f.ID)
		case f.Src == nil || *f.Src < 0 || *f.Src >= nodes:
			return fmt.Errorf("%s (%s): field \"src\": want a node 0..%d", where, f.ID, nodes-1)
		case f.Dst == nil || *f.Dst < 0 || *f.Dst >= nodes:
			return fmt.Errorf("%s (%s): field \"dst\": want a node 0..%d", where, f.ID, nodes-1)
		case *f.Src == *f.Dst:
			return fmt.Errorf("%s (%s): field \"dst\": a flow must leave its node (src = dst = %d)", where, f.ID, *f.Src)
		case f.Bytes == nil || !(*f.Bytes >= 0):
			return fmt.Errorf("%s (%s): field \"bytes\": want a non-negative number", where, f.ID)
		case !(f.StartS >= 0):
			return fmt.Errorf("%s (%s): field \"start_s\": want a non-negative number", where, f.ID)
		}
		seen[f.ID] = true
		flows[i] = network.TimedFlow{ID: f.ID, Bytes: *f.Bytes, Start: f.StartS,
			Path: topo.Path(nil, cluster.NodeID(*f.Src), cluster.NodeID(*f.Dst), false, false)}
	}
	res, makespan, err := network.Replay(topo.LinkCapacities(), flows)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	var out netsimOutput
	for _, r := range res {
		out.Flows = append(out.Flows, struct {
			ID      string  `json:"id"`
			FinishS float64 `json:"finish_s"`
		}{r.ID, r.Finish})
	}
	if out.Flows == nil {
		out.Flows = []struct {
			ID      string  `json:"id"`
			FinishS float64 `json:"finish_s"`
		}{}
	}
	out.MakespanS = makespan
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// isHelp reports whether arg asks for help, as the flag package reads it.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "--h":
		return true
	}
	return false
}

// jsonErr adds a line number to JSON syntax and type errors.
func jsonErr(b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return err
	}
	line := 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n"))
	return fmt.Errorf("line %d: %v", line, err)
}

func cmdTrace(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "stats" {
		fmt.Fprintln(stderr, "usage: mrsched trace stats FILE|FB-2009|FB-2010 [-source-nodes N]")
		if len(args) > 0 && isHelp(args[0]) {
			return flag.ErrHelp
		}
		return errUsage
	}
	fs := flag.NewFlagSet("trace stats", flag.ContinueOnError)
	fs.SetOutput(stderr)
	src := fs.Int("source-nodes", 0, "the traced cluster's nodes (embedded traces know theirs; files default to 600)")
	// Accept the trace before or after the flags.
	rest := args[1:]
	var name string
	if len(rest) > 0 && len(rest[0]) > 0 && rest[0][0] != '-' {
		name, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 || name == "" {
		fmt.Fprintln(stderr, "usage: mrsched trace stats FILE|FB-2009|FB-2010 [-source-nodes N]")
		return errUsage
	}
	// Stats are of the trace as recorded: no byte scaling.
	opt := workload.SWIMOptions{SourceNodes: 600, TargetNodes: 600, Scale: 1, BlockBytes: 128 << 20, Users: 1}
	var jobs []workload.Job
	var err error
	if data, n, ok := traces.Embedded(name); ok {
		opt.SourceNodes, opt.TargetNodes = n, n
		jobs, err = workload.ParseSWIM(bytes.NewReader(data), name, opt)
	} else {
		if *src > 0 {
			opt.SourceNodes, opt.TargetNodes = *src, *src
		}
		jobs, err = workload.LoadSWIMFile(name, opt)
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: neither an embedded trace (%s) nor a file: %w", name, strings.Join(traces.Names(), ", "), err)
		}
	}
	if err != nil {
		return err
	}
	return workload.Summarize(jobs).Write(stdout)
}
