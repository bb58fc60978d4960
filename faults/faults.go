// Package faults describes node losses and returns, a scenario's `faults:`
// section: the events as written (Spec), checked and resolved against a
// cluster into the nodes each one kills or restores (Event). The simulator
// and the testbed carry them out by the same rules (docs/faults.md); this
// package holds only what both need, and imports neither.
package faults

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mrsched/mrsched/cluster"
)

// Spec is one event as a scenario writes it: exactly one of KillNode,
// KillRack and RestoreNode, and its time.
type Spec struct {
	// KillNode names the node that dies ("r1n2": node 2 of rack 1).
	KillNode string `yaml:"kill_node,omitempty" json:"kill_node,omitempty"`
	// KillRack is the rack whose every node dies at once (its top-of-rack
	// switch or its power). A pointer, since rack 0 is a rack.
	KillRack *int `yaml:"kill_rack,omitempty" json:"kill_rack,omitempty"`
	// RestoreNode names a dead node that comes back, empty.
	RestoreNode string `yaml:"restore_node,omitempty" json:"restore_node,omitempty"`
	// AtS is when, in scenario seconds (as submit times are).
	AtS float64 `yaml:"at_s" json:"at_s"`
}

// Kind is what an event does.
type Kind uint8

// The kinds of events.
const (
	KillNode Kind = iota
	KillRack
	RestoreNode
)

func (k Kind) String() string {
	switch k {
	case KillNode:
		return "kill_node"
	case KillRack:
		return "kill_rack"
	}
	return "restore_node"
}

// Event is a resolved event: the nodes it kills or restores, at At.
type Event struct {
	At   float64
	Kind Kind
	// Nodes are the nodes killed or restored, in ID order: one for
	// KillNode and RestoreNode, the rack's nodes still alive for KillRack.
	Nodes []cluster.NodeID
	// Rack is the rack of a KillRack.
	Rack cluster.RackID
	// Index is the event's position in the scenario's list, for messages.
	Index int
}

// MaxAtS bounds an event's time (about 116 days, as engine.stall_s).
const MaxAtS = 1e7

// Error is a spec Resolve refuses: its position in the list, the field at
// fault in the scenario's words ("kill_node", or "" for the entry), and
// why. Its text starts
// with the field's path, "faults[2].kill_node: ...", so that a scenario
// can place it at its line.
type Error struct {
	Index int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("faults[%d]: %s", e.Index, e.Msg)
	}
	return fmt.Sprintf("faults[%d].%s: %s", e.Index, e.Field, e.Msg)
}

// Resolve checks specs against topology t and returns their events in
// time order; events at one time keep the order listed. A spec must name
// exactly one action on a node or rack that exists, at a finite time from
// 0 to MaxAtS, and the sequence must make sense: killing a node already
// dead, or restoring one alive, is an error. A rack kill kills the rack's
// nodes still alive, and is an error only when none is.
func Resolve(specs []Spec, t *cluster.Topology) ([]Event, error) {
	evs := make([]Event, 0, len(specs))
	for i, s := range specs {
		ev, err := resolveOne(i, s, t)
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	slices.SortStableFunc(evs, func(a, b Event) int { return cmp.Compare(a.At, b.At) })
	dead := make([]bool, t.NumNodes())
	deadAt := make([]int, t.NumNodes()) // the event that killed a dead node
	for k := range evs {
		ev := &evs[k]
		switch ev.Kind {
		case KillNode:
			n := ev.Nodes[0]
			if dead[n] {
				return nil, &Error{ev.Index, "kill_node", fmt.Sprintf("%s is already dead at t=%v s (killed by faults[%d]); restore it first", NodeName(t, n), ev.At, deadAt[n])}
			}
			dead[n], deadAt[n] = true, ev.Index
		case KillRack:
			alive := ev.Nodes[:0]
			for _, n := range ev.Nodes {
				if !dead[n] {
					alive = append(alive, n)
					dead[n], deadAt[n] = true, ev.Index
				}
			}
			if len(alive) == 0 {
				return nil, &Error{ev.Index, "kill_rack", fmt.Sprintf("every node of rack %d is already dead at t=%v s", ev.Rack, ev.At)}
			}
			ev.Nodes = alive
		case RestoreNode:
			n := ev.Nodes[0]
			if !dead[n] {
				return nil, &Error{ev.Index, "restore_node", fmt.Sprintf("%s is alive at t=%v s; only a dead node can be restored", NodeName(t, n), ev.At)}
			}
			dead[n] = false
		}
	}
	return evs, nil
}

func resolveOne(i int, s Spec, t *cluster.Topology) (Event, error) {
	set := 0
	for _, ok := range []bool{s.KillNode != "", s.KillRack != nil, s.RestoreNode != ""} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return Event{}, &Error{i, "", "want exactly one of kill_node, kill_rack and restore_node in an event"}
	}
	if !(s.AtS >= 0 && s.AtS <= MaxAtS) {
		return Event{}, &Error{i, "at_s", fmt.Sprintf("%v; want a number from 0 to %v (s)", s.AtS, MaxAtS)}
	}
	ev := Event{At: s.AtS, Index: i}
	switch {
	case s.KillNode != "":
		n, err := ParseNode(t, s.KillNode)
		if err != nil {
			return Event{}, &Error{i, "kill_node", err.Error()}
		}
		ev.Kind, ev.Nodes = KillNode, []cluster.NodeID{n}
	case s.RestoreNode != "":
		n, err := ParseNode(t, s.RestoreNode)
		if err != nil {
			return Event{}, &Error{i, "restore_node", err.Error()}
		}
		ev.Kind, ev.Nodes = RestoreNode, []cluster.NodeID{n}
	default:
		r := *s.KillRack
		if r < 0 || r >= t.NumRacks() {
			return Event{}, &Error{i, "kill_rack", fmt.Sprintf("%d; the cluster has racks 0 to %d", r, t.NumRacks()-1)}
		}
		first, count := t.RackNodes(cluster.RackID(r))
		ev.Kind, ev.Rack = KillRack, cluster.RackID(r)
		for k := 0; k < count; k++ {
			ev.Nodes = append(ev.Nodes, first+cluster.NodeID(k))
		}
	}
	return ev, nil
}

// NodeName is node n's name, "rRnN": node N (from 0) of rack R (from 0).
func NodeName(t *cluster.Topology, n cluster.NodeID) string {
	first, _ := t.RackNodes(t.Rack(n))
	return fmt.Sprintf("r%dn%d", t.Rack(n), n-first)
}

// NodeNames names several nodes, comma-separated.
func NodeNames(t *cluster.Topology, ns []cluster.NodeID) string {
	names := make([]string, len(ns))
	for i, n := range ns {
		names[i] = NodeName(t, n)
	}
	return strings.Join(names, ", ")
}

// ParseName reads a node name "rRnN" into its rack and its index in the
// rack. Numbers are decimal without sign or leading zeros, so that each
// node has one name.
func ParseName(s string) (rack, node int, err error) {
	bad := fmt.Errorf("%q is not a node name; want rRnN, node N of rack R, both from 0 (r1n2)", s)
	rest, ok := strings.CutPrefix(s, "r")
	if !ok {
		return 0, 0, bad
	}
	rs, ns, ok := strings.Cut(rest, "n")
	if !ok {
		return 0, 0, bad
	}
	num := func(d string) (int, bool) {
		if d == "" || len(d) > 1 && d[0] == '0' || len(d) > 9 {
			return 0, false
		}
		for _, c := range d {
			if c < '0' || c > '9' {
				return 0, false
			}
		}
		v, err := strconv.Atoi(d)
		return v, err == nil && v <= math.MaxInt32
	}
	r, ok1 := num(rs)
	n, ok2 := num(ns)
	if !ok1 || !ok2 {
		return 0, 0, bad
	}
	return r, n, nil
}

// ParseNode reads a node name and finds the node in t.
func ParseNode(t *cluster.Topology, s string) (cluster.NodeID, error) {
	r, n, err := ParseName(s)
	if err != nil {
		return 0, err
	}
	if r >= t.NumRacks() {
		return 0, fmt.Errorf("%s: no rack %d; the cluster has racks 0 to %d", s, r, t.NumRacks()-1)
	}
	first, count := t.RackNodes(cluster.RackID(r))
	if n >= count {
		return 0, fmt.Errorf("%s: no node %d in rack %d; a rack has nodes 0 to %d", s, n, r, count-1)
	}
	return first + cluster.NodeID(n), nil
}
