package allocations

import (
	"math"
	"strings"

	"github.com/mrsched/mrsched/sched"
)

// Units turns a YARN resource into slots or containers of one kind. The
// simulator's container holds one task of TaskMemoryMB; YARN's default
// fair policy (FairSharePolicy) divides memory alone, so a resource's
// memory decides its size in containers, and its vcores do not.
type Units struct {
	// TaskMemoryMB is the memory a task holds: the workload's, else
	// mapreduce.map.memory.mb's default, 1024.
	TaskMemoryMB float64
}

// DefaultTaskMemoryMB is mapreduce.map.memory.mb's default (mapred-default.xml).
const DefaultTaskMemoryMB = 1024

// Slots is r's size in slots of a kind whose cluster-wide capacity is
// capacity: its memory over a task's, or its fraction of the capacity
// when r is a percentage. A maximum that leaves memory out, and a nil
// maximum, is unlimited (+Inf); a nil minimum is 0.
func (u Units) Slots(r *Resource, capacity float64, isMax bool) float64 {
	if r == nil || (isMax && r.MemUnset) {
		if isMax {
			return math.Inf(1)
		}
		return 0
	}
	if r.Percent {
		return r.MemoryMB * capacity
	}
	mb := u.TaskMemoryMB
	if mb <= 0 {
		mb = DefaultTaskMemoryMB
	}
	return r.MemoryMB / mb
}

// MaxSlots is queue q's maximum in slots of a kind whose capacity is
// given, +Inf for none: its own maxResources, else (YARN)
// queueMaxResourcesDefault or, where its minimum is larger, its minimum
// (AllocationConfiguration.getMaxResources). A nil q is a queue
// placement made, which takes the default.
func (c *Config) MaxSlots(q *Queue, u Units, capacity float64) float64 {
	var own, min *Resource
	if q != nil {
		own, min = q.MaxResources, q.MinResources
	}
	if own != nil || c.DefaultMaxResources == nil || q == c.Root {
		return u.Slots(own, capacity, true)
	}
	return max(u.Slots(c.DefaultMaxResources, capacity, true), u.Slots(min, capacity, false))
}

// Tree divides a slot kind's capacity among active leaf queues down the
// queue tree, as YARN's Fair Scheduler computes instantaneous fair
// shares: each parent's share is divided among its active children (those
// with a job somewhere below them) by ComputeFairShares, and so on to the
// leaves. It implements sched.ShareTree.
type Tree struct {
	c *Config
	u Units
}

var _ sched.ShareTree = (*Tree)(nil)

// Tree returns the config's share tree in units u.
func (c *Config) Tree(u Units) *Tree { return &Tree{c: c, u: u} }

// parentOf is the declared queue a queue name hangs under: the longest
// declared prefix of its dotted path, else the root. A queue placement
// created (a user's queue) thus sits under the queue its name says.
func (t *Tree) parentOf(name string) *Queue {
	for {
		i := strings.LastIndexByte(name, '.')
		if i < 0 {
			return t.c.Root
		}
		name = name[:i]
		if q := t.c.byName[name]; q != nil {
			return q
		}
	}
}

// PoolShares writes into out each pool's share of capacity; pools are the
// active leaves, reqs their requests (weight and minimum share of the
// leaf; demand is not a cap, as in YARN). Interior queues take their
// weight, minResources and maxResources from the file.
func (t *Tree) PoolShares(out []float64, capacity float64, pools []string, reqs []sched.ShareRequest) []float64 {
	out = append(out[:0], make([]float64, len(pools))...)
	// Children of each queue with an active leaf below: declared children
	// in file order, then leaves the file does not declare.
	type child struct {
		q    *Queue // nil for an undeclared leaf
		leaf int    // index in pools, or -1
	}
	kids := map[*Queue][]child{}
	active := map[*Queue]bool{t.c.Root: true}
	leafOf := map[*Queue]int{}
	var extra []child
	var extraParent []*Queue
	for i, name := range pools {
		q := t.c.byName[name]
		var p *Queue
		if q != nil {
			leafOf[q] = i
			p = q.Parent
		} else {
			p = t.parentOf(name)
			extra = append(extra, child{leaf: i})
			extraParent = append(extraParent, p)
		}
		for a := q; a != nil; a = a.Parent {
			active[a] = true
		}
		for a := p; a != nil; a = a.Parent {
			active[a] = true
		}
	}
	var walk func(q *Queue)
	walk = func(q *Queue) {
		for _, k := range q.Children {
			if !active[k] {
				continue
			}
			i, ok := leafOf[k]
			if !ok {
				i = -1
			}
			kids[q] = append(kids[q], child{q: k, leaf: i})
			walk(k)
		}
	}
	walk(t.c.Root)
	for i, e := range extra {
		kids[extraParent[i]] = append(kids[extraParent[i]], e)
	}
	var divide func(q *Queue, share float64)
	divide = func(q *Queue, share float64) {
		cs := kids[q]
		if len(cs) == 0 {
			return
		}
		ws, mins, maxs := make([]float64, len(cs)), make([]float64, len(cs)), make([]float64, len(cs))
		for i, c := range cs {
			if c.leaf >= 0 {
				ws[i], mins[i] = reqs[c.leaf].Weight, reqs[c.leaf].MinShare
			} else {
				ws[i], mins[i] = c.q.Weight, t.u.Slots(c.q.MinResources, capacity, false)
			}
			maxs[i] = t.c.MaxSlots(c.q, t.u, capacity)
		}
		shares := ComputeShares(share, ws, mins, maxs)
		for i, c := range cs {
			if c.leaf >= 0 {
				out[c.leaf] = shares[i]
			}
			if c.q != nil {
				divide(c.q, shares[i])
			}
		}
	}
	divide(t.c.Root, capacity)
	return out
}

// shareIterations is how many halvings the search for the weight-to-share
// ratio takes. YARN's ComputeFairShares takes 25 on integral megabytes;
// the model's shares are fractional slots, so it takes enough for a
// float64's precision.
const shareIterations = 64

// ComputeShares divides total among schedulables of weights ws, minimum
// shares mins and maximum shares maxs as YARN's ComputeFairShares does:
// one with a maximum of 0 or less gets 0; one with a weight of 0 or less
// its minimum, which is taken off the total first; the rest get
// clamp(R x weight, min, max), R found by binary search so that their
// shares add up to the rest of the total, or to the sum of their maxima
// when that is smaller. Minimums may exceed the total, as in YARN.
func ComputeShares(total float64, ws, mins, maxs []float64) []float64 {
	out := make([]float64, len(ws))
	var rest []int
	taken := 0.0
	for i := range ws {
		switch {
		case maxs[i] <= 0:
		case ws[i] <= 0:
			out[i] = max(mins[i], 0)
			taken += out[i]
		default:
			rest = append(rest, i)
		}
	}
	if len(rest) == 0 {
		return out
	}
	sumMax := 0.0
	for _, i := range rest {
		sumMax += maxs[i]
	}
	target := min(max(total-taken, 0), sumMax)
	used := func(r float64) float64 {
		s := 0.0
		for _, i := range rest {
			s += clamp(r*ws[i], mins[i], maxs[i])
		}
		return s
	}
	hi := 1.0
	for n := 0; used(hi) < target && n < 2100; n++ {
		hi *= 2
	}
	lo := 0.0
	for range shareIterations {
		mid := (lo + hi) / 2
		switch u := used(mid); {
		case u == target:
			hi = mid
		case u < target:
			lo = mid
			continue
		default:
			hi = mid
			continue
		}
		break
	}
	for _, i := range rest {
		out[i] = clamp(hi*ws[i], mins[i], maxs[i])
	}
	return out
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }
