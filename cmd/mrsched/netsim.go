package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/network"
)

// netsimInput is the JSON `mrsched netsim` reads. Numbers are read as
// float64 and checked here, so that a fraction where a count is wanted is
// told in the input's words, not Go's.
type netsimInput struct {
	Racks          *float64     `json:"racks"`
	NodesPerRack   *float64     `json:"nodes_per_rack"`
	NICGbps        *float64     `json:"nic_gbps"`
	RackUplinkGbps *float64     `json:"rack_uplink_gbps"`
	Flows          []netsimFlow `json:"flows"`
}

type netsimFlow struct {
	ID     *string  `json:"id"`
	Src    *float64 `json:"src"`
	Dst    *float64 `json:"dst"`
	Bytes  *float64 `json:"bytes"`
	StartS *float64 `json:"start_s"`
}

// netsimFields are the keys an input may have, at the top and in a flow.
var netsimFields = map[string][]string{
	"":      {"racks", "nodes_per_rack", "nic_gbps", "rack_uplink_gbps", "flows"},
	"flows": {"id", "src", "dst", "bytes", "start_s"},
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
		return usageFor(stderr, "usage: mrsched netsim FILE.json\n  the flow-level network model alone: each flow's finish time (examples/netsim-two-racks.json)", args)
	}
	name := args[0]
	b, err := os.ReadFile(name)
	if err != nil {
		return err
	}
	in, keys, err := readNetsim(b)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	out, err := solveNetsim(name, in, keys.lines)
	if werr := keys.err(); werr != nil {
		// The key walk's errors (unknown or repeated keys, data after the
		// object) come first, as they would had it run first.
		return fmt.Errorf("%s: %v", name, werr)
	}
	if err != nil {
		return err
	}
	if b, ok := appendPlainOutput(make([]byte, 0, 64*len(out.Flows)+64), out); ok {
		_, err := stdout.Write(b)
		return err
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// solveNetsim checks a decoded input and replays its flows. lines gives
// the keys' lines for its messages.
func solveNetsim(name string, in netsimInput, lines func() keyLines) (*netsimOutput, error) {
	// at places a message at its field's line: "FILE: line 3: field ...".
	at := func(path, format string, args ...any) error {
		lines := lines()
		return fmt.Errorf("%s: line %d: %s", name, lines.line(path), fmt.Sprintf(format, args...))
	}
	count := func(key string, v *float64) (int, error) {
		switch {
		case v == nil:
			return 0, fmt.Errorf("%s: field %q: required, a whole number from 1 to %d", name, key, cluster.MaxNodes)
		case *v != math.Trunc(*v) || *v < 1 || *v > cluster.MaxNodes:
			return 0, at(key, "field %q: %v; want a whole number from 1 to %d", key, *v, cluster.MaxNodes)
		}
		return int(*v), nil
	}
	racks, err := count("racks", in.Racks)
	if err != nil {
		return nil, err
	}
	perRack, err := count("nodes_per_rack", in.NodesPerRack)
	if err != nil {
		return nil, err
	}
	if racks*perRack > cluster.MaxNodes {
		return nil, at("nodes_per_rack", "field \"nodes_per_rack\": %d racks of %d nodes; at most %d nodes in all are supported", racks, perRack, cluster.MaxNodes)
	}
	speed := func(key string, v *float64, hiMbps float64) (float64, error) {
		lo, hi := cluster.MinBandwidth/1000, hiMbps/1000
		switch {
		case v == nil:
			return 0, fmt.Errorf("%s: field %q: required, Gbit/s from %v to %v", name, key, lo, hi)
		case !(*v >= lo && *v <= hi):
			return 0, at(key, "field %q: %v; want Gbit/s from %v to %v", key, *v, lo, hi)
		}
		return *v * 1000, nil
	}
	nic, err := speed("nic_gbps", in.NICGbps, cluster.MaxNICMbps)
	if err != nil {
		return nil, err
	}
	uplink, err := speed("rack_uplink_gbps", in.RackUplinkGbps, cluster.MaxRackUplinkMbps)
	if err != nil {
		return nil, err
	}
	topo, err := cluster.New(cluster.Config{Racks: racks, NodesPerRack: perRack,
		NICMbps: nic, RackUplinkMbps: uplink, MapSlots: 1, ReduceSlots: 1, Replication: 1})
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	nodes := topo.NumNodes()
	flows := make([]network.TimedFlow, len(in.Flows))
	seen := make(map[string]bool, len(in.Flows))
	// One array holds every path: a path is at most four links here (no
	// disks), and the network copies it into its flow.
	paths := make([]network.LinkID, 0, 4*len(in.Flows))
	for i, f := range in.Flows {
		// where names the flow in messages; only a message pays for it.
		where := func() string { return "flows[" + strconv.Itoa(i) + "]" }
		if f.ID == nil || *f.ID == "" {
			return nil, at(where(), "%s: field \"id\": required", where())
		}
		id := *f.ID
		node := func(key string, v *float64) (cluster.NodeID, error) {
			if v == nil || *v != math.Trunc(*v) || *v < 0 || *v >= float64(nodes) {
				got := "none"
				if v != nil {
					got = fmt.Sprint(*v)
				}
				return 0, at(where()+"."+key, "%s (%s): field %q: %s; want a node 0..%d", where(), id, key, got, nodes-1)
			}
			return cluster.NodeID(*v), nil
		}
		src, err := node("src", f.Src)
		if err != nil {
			return nil, err
		}
		dst, err := node("dst", f.Dst)
		if err != nil {
			return nil, err
		}
		start := 0.0
		if f.StartS != nil {
			start = *f.StartS
		}
		switch {
		case seen[id]:
			return nil, at(where()+".id", "%s: field \"id\": %q is used twice", where(), id)
		case src == dst:
			return nil, at(where()+".dst", "%s (%s): field \"dst\": a flow must leave its node (src = dst = %d)", where(), id, src)
		case f.Bytes == nil || !(*f.Bytes >= 0):
			return nil, at(where()+".bytes", "%s (%s): field \"bytes\": want a non-negative number", where(), id)
		case !(start >= 0):
			return nil, at(where()+".start_s", "%s (%s): field \"start_s\": want a non-negative number", where(), id)
		}
		seen[id] = true
		k := len(paths)
		path := topo.Path(paths[k:k:k+4], src, dst, false, false)
		paths = paths[:k+len(path)]
		flows[i] = network.TimedFlow{ID: id, Bytes: *f.Bytes, Start: start, Path: path}
	}
	res, makespan, err := network.Replay(topo.LinkCapacities(), flows)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
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
	return &out, nil
}

// keyLines maps each key of a JSON document, by its path ("nic_gbps",
// "flows[2].src"), to its line.
type keyLines map[string]int

func (k keyLines) line(path string) int {
	if l, ok := k[path]; ok {
		return l
	}
	return 1
}

// keyWalk is the walk of an input's keys (scanKeys): lines gives each
// key's line, for messages, and err what the walk refused, which the
// caller reports before any message of its own, as if the walk had come
// first.
type keyWalk struct {
	lines func() keyLines
	err   func() error
}

// readNetsim decodes a netsim input: one JSON object with known fields,
// each once, and nothing after it. Errors give the line. A plain input
// (parsePlainNetsim) is read in one pass, and its keys are walked only if
// a message wants a line. Any other is decoded by encoding/json, and the
// walk of its keys, which costs more than the decoding, runs beside the
// decoding and whatever the caller does next.
func readNetsim(b []byte) (netsimInput, keyWalk, error) {
	if in, ok := parsePlainNetsim(b); ok {
		lines := sync.OnceValue(func() keyLines {
			lines, _ := scanKeys(b) // refuses nothing in a plain input
			return lines
		})
		return in, keyWalk{lines: lines, err: func() error { return nil }}, nil
	}
	type walk struct {
		lines keyLines
		err   error
	}
	done := make(chan walk, 1)
	go func() {
		lines, err := scanKeys(b)
		done <- walk{lines, err}
	}()
	walked := sync.OnceValues(func() (keyLines, error) {
		w := <-done
		return w.lines, w.err
	})
	keys := keyWalk{
		lines: func() keyLines { l, _ := walked(); return l },
		err:   func() error { _, err := walked(); return err },
	}
	var in netsimInput
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&in); err != nil {
		if werr := keys.err(); werr != nil {
			return in, keyWalk{}, werr
		}
		return in, keyWalk{}, jsonErr(b, err)
	}
	return in, keys, nil
}

// scanKeys walks the document's tokens: it records each key's line,
// refuses keys netsim does not know and keys given twice, and anything
// after the top-level object.
func scanKeys(b []byte) (keyLines, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	lines := keyLines{}
	// lineAt counts lines from the last offset asked for: the decoder's
	// offsets only grow, and counting from the start for every key made
	// reading 50,000 flows quadratic.
	lastOff, lastLine := 0, 1
	lineAt := func(off int64) int {
		o := min(int(off), len(b))
		if o < lastOff {
			lastOff, lastLine = 0, 1
		}
		lastLine += bytes.Count(b[lastOff:o], []byte("\n"))
		lastOff = o
		return lastLine
	}
	var value func(path, section string) error
	value = func(path, section string) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			if section == "-" {
				return fmt.Errorf("line %d: field %q: want a value, got an object", lineAt(dec.InputOffset()), path)
			}
			known := netsimFields[section]
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := k.(string)
				p := key
				if path != "" {
					p = path + "." + key
				}
				line := lineAt(dec.InputOffset())
				lines[p] = line
				if !slices.Contains(known, key) {
					return fmt.Errorf("line %d: field %q: unknown; want %s", line, p, strings.Join(known, ", "))
				}
				if seen[key] {
					return fmt.Errorf("line %d: field %q: given twice", line, p)
				}
				seen[key] = true
				sub := "-"
				if key == "flows" {
					sub = "flows"
				}
				if err := value(p, sub); err != nil {
					return err
				}
			}
			_, err = dec.Token() // '}'
			return err
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				p := fmt.Sprintf("%s[%d]", path, i)
				lines[p] = lineAt(dec.InputOffset())
				if err := value(p, section); err != nil {
					return err
				}
			}
			_, err = dec.Token() // ']'
			return err
		}
		return nil
	}
	first, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("empty input; want a JSON object with racks, nodes_per_rack, nic_gbps, rack_uplink_gbps and flows")
		}
		return nil, jsonErr(b, err)
	}
	if first != json.Delim('{') {
		return nil, fmt.Errorf("line %d: want a JSON object with racks, nodes_per_rack, nic_gbps, rack_uplink_gbps and flows", lineAt(dec.InputOffset()))
	}
	// The top object's members, as value would walk them after its '{'.
	dec = json.NewDecoder(bytes.NewReader(b))
	if err := value("", ""); err != nil {
		return nil, jsonErr(b, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("line %d: data after the JSON object; want one object", lineAt(dec.InputOffset()))
	}
	return lines, nil
}

// jsonErr adds a line number to JSON syntax and type errors, and says a
// type error in the input's words.
func jsonErr(b []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	line := func(off int64) int { return 1 + bytes.Count(b[:min(int(off), len(b))], []byte("\n")) }
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("line %d: %v", line(se.Offset), err)
	case errors.As(err, &te):
		want := map[string]string{"float64": "a number", "string": "a string", "[]main.netsimFlow": "a list of flows"}[te.Type.String()]
		if want == "" {
			want = "an object"
		}
		return fmt.Errorf("line %d: field %q: want %s, got %s", line(te.Offset), te.Field, want, te.Value)
	}
	return err
}
