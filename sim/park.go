package sim

import (
	"math"

	"github.com/mrsched/mrsched/cluster"
)

// Parked heartbeats.
//
// On a cluster that is mostly idle (the FB-2009 day on 100 nodes), almost
// every heartbeat finds nothing a policy could launch: no active job has
// a pending map or an enabled pending reduce. Such a heartbeat does
// nothing but reset the node's freed-slot flags (which the offer at the
// end of a slot's freeing instant has already reset), note that the run
// is making progress, and schedule the next one; yet each costs a pop and
// a push of the event queue, and they were most of a run's events.
//
// A node whose heartbeat finds nothing launchable is parked instead of
// scheduling its next beat: it keeps the time of that beat (next) and
// its heartbeat stays counted as scheduled (hb), so nothing else starts
// another. Its later beats are virtual: they happen, one heartbeat period
// apart as the queue would have had them, but are not queued. They are
// counted (settle) where anything reads what they would have changed:
//   - the events handled (handled, instantMark), which the run's guards
//     and its performance report read;
//   - the time of the last progress the stall rule measures from: a
//     virtual beat always finds the run busy (below), so it would have set
//     it.
//
// Parked nodes are woken, their next beats queued again, as soon as a
// beat could do anything else (wakeIfNeeded, checked after every event,
// every batch of flow completions and every round of offers):
//   - a task becomes launchable (a job arrives, slow start enables
//     reduces, a killed or lost task is pending again), so the beat offers
//     it to the policy;
//   - no job is left, so the beat ends the node's chain of heartbeats as
//     the queue's would;
//   - nothing moves (no flow, no timed phase), so the beat applies the
//     stall rule.
//
// Which beats have happened at the current instant follows the queue's
// order of an instant: flows completing, then events by kind (phases,
// faults, arrivals, preemption, then heartbeats, then samples), then the
// round of offers. A beat at exactly the current time has happened once a
// heartbeat or a later kind was handled, or the round of offers began
// (beatsDone); before that it is still to come, and a woken node's beat
// is queued at that time. Heartbeats of two nodes never share a time
// (their phases differ by a period over the node count).
//
// Parking is off where a beat that finds nothing launchable still does
// something: speculative execution (a free map slot may take a backup),
// a policy told of idle offers (sched.IdleOffers: NAS's CR-RTS lifts its
// hold there), node faults (a dead node's beat ends its chain), and runs
// that check invariants at every beat.

// noParking turns parking off in every engine. Only tests set it, to run
// the same scenario with every heartbeat queued.
var noParking bool

// parkingAllowed reports whether this run may park heartbeats.
func (e *Engine) parkingAllowed() bool {
	return !noParking && !e.p.Speculative && !e.p.CheckInvariants && !e.jt.TellsIdleOffers() &&
		len(e.faults) == 0 && e.faultPending == 0
}

// park keeps node n's next heartbeat, at next, after the one at the
// current time, as a virtual one.
func (e *Engine) park(n cluster.NodeID, next float64) {
	if len(e.parked) == 0 || next < e.parkMin {
		e.parkMin = next
	}
	e.nodes[n].hb = true
	e.parked = append(e.parked, n)
	e.parkNext = append(e.parkNext, next)
}

// idle reports whether a heartbeat now would find nothing to offer.
func (e *Engine) idle() bool {
	m, r := e.jt.Launchable()
	return m == 0 && r == 0
}

// wakeIfNeeded queues the parked nodes' heartbeats again when a beat could
// now do more than a virtual one does.
func (e *Engine) wakeIfNeeded() {
	if len(e.parked) == 0 {
		return
	}
	if e.idle() && len(e.jt.Jobs()) > 0 && (e.net.ActiveFlows() > 0 || e.phasePending > 0) {
		return
	}
	e.settle()
	e.wake()
}

// wake queues the parked nodes' next heartbeats.
func (e *Engine) wake() {
	for i, n := range e.parked {
		e.events.push(event{t: e.parkNext[i], kind: evHeartbeat, a: int32(n)})
	}
	e.parked, e.parkNext = e.parked[:0], e.parkNext[:0]
}

// due reports whether a virtual heartbeat at t has happened by now.
func (e *Engine) due(t float64) bool {
	return t < e.now || (e.beatsDone && t == e.now)
}

// settle counts the virtual heartbeats that have happened by now (at the
// current time only if beatsDone) as handled events, each of them progress
// for the stall rule, and moves each parked node's next beat past them.
// Most calls find none due (parkMin), and cost nothing more.
func (e *Engine) settle() {
	if len(e.parked) == 0 || !e.due(e.parkMin) {
		return
	}
	least, stuck := math.Inf(1), false
	for i, n := range e.parked {
		t := e.parkNext[i]
		for e.due(t) {
			next := e.beatAfter(n, t)
			if next <= t {
				// Time too late for a heartbeat period to advance it: the
				// queue would hold this beat at t for ever, which the
				// run's guard stops (spinError). A node is parked only
				// where its next beat advances time, so this takes a run
				// that has run on for about 2^52 periods.
				stuck = true
				break
			}
			e.handled++
			e.parkedBeats++
			if t < e.now {
				e.instantMark++ // the beat belongs to an earlier instant
			}
			e.lastProgress = max(e.lastProgress, t)
			t = next
		}
		e.parkNext[i] = t
		least = min(least, t)
	}
	e.parkMin = least
	if stuck {
		e.wake()
	}
}

// handledNow is the count of events handled, virtual heartbeats included.
func (e *Engine) handledNow() int64 {
	e.settle()
	return e.handled
}

// markDone records that a task finished or a job arrived now, for the
// run's guards (guard.go).
func (e *Engine) markDone() {
	e.lastDone, e.doneEvents = e.now, e.handledNow()
}
