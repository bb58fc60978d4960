package sched

import (
	"fmt"
	"slices"
	"strings"
)

// Decode fills a policy's parameter struct from the user's configuration,
// rejecting unknown fields. It hides the configuration format (YAML) from
// the policies.
type Decode func(into any) error

// Factory builds a policy from its decoded parameters.
type Factory func(decode Decode) (Policy, error)

// Entry describes a registered policy for help output and docs.
type Entry struct {
	Name    string
	Summary string
	New     Factory
}

var registry = []Entry{
	{Name: "fifo", Summary: "Hadoop's default: jobs in submit order, closest map first", New: func(Decode) (Policy, error) { return NewFIFO(), nil }},
	{Name: "fair", Summary: "Fair Scheduler: pools with min shares and weights, max-min fair, closest map first", New: func(d Decode) (Policy, error) {
		var p FairParams
		if err := d(&p); err != nil {
			return nil, err
		}
		return NewFair(p)
	}},
	{Name: "delay", Summary: "Fair Scheduler with delay scheduling: a job waits up to t1_s for a node-local slot, t2_s more for a rack-local one", New: func(d Decode) (Policy, error) {
		var p FairDelayParams
		if err := d(&p); err != nil {
			return nil, err
		}
		return NewFairDelay(p)
	}},
	{Name: "fifo-delay", Summary: "FIFO order with delay scheduling", New: func(d Decode) (Policy, error) {
		var p DelayParams
		if err := d(&p); err != nil {
			return nil, err
		}
		return NewFIFODelay(p)
	}},
	{Name: "drf", Summary: "Dominant Resource Fairness between pools; closest map first among tasks that fit the node", New: func(d Decode) (Policy, error) {
		var p DRFParams
		if err := d(&p); err != nil {
			return nil, err
		}
		return NewDRF(p)
	}},
}

// Policies lists the registered policies in registry order (the order
// `mrsched compare` runs them).
func Policies() []Entry { return slices.Clone(registry) }

// PolicyNames lists the registered names.
func PolicyNames() []string {
	names := make([]string, len(registry))
	for i, e := range registry {
		names[i] = e.Name
	}
	return names
}

// NewPolicy builds the named policy. A nil decode means no parameters.
func NewPolicy(name string, decode Decode) (Policy, error) {
	if decode == nil {
		decode = func(any) error { return nil }
	}
	for _, e := range registry {
		if e.Name == name {
			p, err := e.New(decode)
			if err != nil {
				return nil, fmt.Errorf("policy %s: %w", name, err)
			}
			return p, nil
		}
	}
	return nil, fmt.Errorf("unknown policy %q (known: %s)", name, strings.Join(PolicyNames(), ", "))
}
