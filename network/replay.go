package network

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// replaySetup, when set (by tests), adjusts Replay's network before the
// first flow, e.g. to make it solve in full at every change.
var replaySetup func(*Network[int])

// TimedFlow is one transfer for Replay: Bytes over Path, starting at Start,
// limited to Cap bytes/second (Cap <= 0 or +Inf means uncapped).
type TimedFlow struct {
	ID    string
	Path  []LinkID
	Bytes float64
	Start float64
	Cap   float64
}

// FlowResult is the completion time of one TimedFlow.
type FlowResult struct {
	ID     string
	Finish float64
}

// Replay runs flows through a fresh Network with the given link capacities
// and returns each flow's finish time, in input order, and the makespan (the
// latest finish, 0 for no flows). It exists to validate the bandwidth model
// on its own, away from any scheduler. Flows with equal Start are added in
// input order; completions at a start time are processed before the starts.
func Replay(capacities []float64, flows []TimedFlow) ([]FlowResult, float64, error) {
	n, err := New[int](capacities)
	if err != nil {
		return nil, 0, err
	}
	if replaySetup != nil {
		replaySetup(n)
	}
	for i, f := range flows {
		if math.IsNaN(f.Start) || math.IsInf(f.Start, 0) || f.Start < 0 {
			return nil, 0, fmt.Errorf("network: flow %d (%q) starts at %v; want a finite time >= 0", i, f.ID, f.Start)
		}
	}
	order := make([]int, len(flows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(flows[a].Start, flows[b].Start) })

	results := make([]FlowResult, len(flows))
	var makespan float64
	record := func(cs []Completed[int]) {
		for _, c := range cs {
			i := c.Data
			results[i] = FlowResult{ID: flows[i].ID, Finish: c.Finish}
			makespan = max(makespan, c.Finish)
		}
	}
	next := 0
	for {
		tc, busy := n.NextCompletion()
		if next == len(order) && !busy {
			break
		}
		if busy && (next == len(order) || tc <= flows[order[next]].Start) {
			if math.IsInf(tc, 1) {
				return nil, 0, fmt.Errorf("network: replay stalled: active flows have zero rate")
			}
			record(n.PopCompleted(tc))
			continue
		}
		start := flows[order[next]].Start
		for ; next < len(order) && flows[order[next]].Start == start; next++ {
			i := order[next]
			f := flows[i]
			if _, err := n.AddFlow(start, f.Path, f.Bytes, f.Cap, i); err != nil {
				return nil, 0, fmt.Errorf("flow %d (%q): %w", i, f.ID, err)
			}
		}
	}
	return results, makespan, nil
}
