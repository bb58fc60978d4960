package master

import (
	"cmp"
	"slices"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/testbed/wire"
)

// Node loss on the testbed, by the rules of docs/faults.md, which the
// simulator follows too (sim/nodeloss.go).
//
// At a kill the master has the node's worker killed (SIGKILL): its
// connections break as a dead machine's do, and the workers that were
// reading from it, fetching from it or writing through it find out at
// once (a read moves to another replica, a fetch fails, is reported and
// retried with a back-off until the outputs are declared obsolete and made
// again, a pipeline drops the node). The master itself learns
// nothing until the node expires, engine.node_expiry_s later without a
// heartbeat, as Hadoop 1's JobTracker does: then it declares the node
// lost to its job tracker (jobtracker.Tracker.NodeLost), which ends its
// attempts, runs again the maps whose output it held, forgets its
// replicas, and takes its slots out of the cluster. A restore starts a
// new worker on the node, with an empty store.

// faultAction is a kill, restore or expiry due at a scenario time.
type faultAction struct {
	at     float64
	seq    int // ties keep the events' order
	event  *faults.Event
	expiry cluster.NodeID // for an expiry (event nil)
	life   int            // the node's life an expiry belongs to
}

type nodeLife struct {
	// down: nothing is sent to the node's worker (killed, exited or
	// expired); gone: the node is declared lost; killed: a faults: kill
	// took it (its expiry is scheduled); expired: lost by heartbeat
	// expiry, its old worker possibly still alive.
	down, gone, killed, expired bool
	life                        int
	exit                        string // how its worker ended, if it did
}

// scheduleFaults queues the run's events.
func (m *Master) scheduleFaults() {
	for i := range m.cfg.Faults {
		ev := &m.cfg.Faults[i]
		m.pushFault(faultAction{at: ev.At, event: ev})
	}
}

func (m *Master) pushFault(a faultAction) {
	m.faultSeq++
	a.seq = m.faultSeq
	i, _ := slices.BinarySearchFunc(m.faultQ, a, func(x, y faultAction) int {
		return cmp.Or(cmp.Compare(x.at, y.at), cmp.Compare(x.seq, y.seq))
	})
	m.faultQ = slices.Insert(m.faultQ, i, a)
}

// nextFault is when the next fault action is due, or false.
func (m *Master) nextFault() (float64, bool) {
	if len(m.faultQ) == 0 {
		return 0, false
	}
	return m.faultQ[0].at, true
}

// runFaults carries out the actions due by now.
func (m *Master) runFaults() {
	now := m.Now()
	for len(m.faultQ) > 0 && m.faultQ[0].at <= now && m.err == nil {
		a := m.faultQ[0]
		m.faultQ = m.faultQ[1:]
		switch {
		case a.event == nil:
			if l := &m.lives[a.expiry]; l.down && !l.gone && l.life == a.life {
				m.loseNode(a.expiry)
			}
		case a.event.Kind == faults.RestoreNode:
			m.restoreNode(a.event.Nodes[0])
		default:
			for _, n := range a.event.Nodes {
				m.killNode(n, a.event.At)
			}
		}
	}
}

// killNode has node n's worker killed and queues its expiry.
func (m *Master) killNode(n cluster.NodeID, at float64) {
	l := &m.lives[n]
	if l.down {
		return
	}
	l.down, l.killed = true, true
	l.life++
	m.jt.NodeDown(n)
	if err := m.cfg.Kill(int(n)); err != nil {
		m.fail("killing the worker of node %s: %v", faults.NodeName(m.cfg.Topology, n), err)
		return
	}
	m.pushFault(faultAction{at: at + m.cfg.Engine.NodeExpiryS, expiry: n, life: l.life})
}

// restoreNode brings dead node n back with a new, empty worker: declared
// lost first if it had not expired.
func (m *Master) restoreNode(n cluster.NodeID) {
	l := &m.lives[n]
	if !l.gone {
		m.loseNode(n)
	}
	c, err := m.cfg.Restore(int(n))
	if err != nil {
		m.fail("restoring node %s: %v", faults.NodeName(m.cfg.Topology, n), err)
		return
	}
	l.down, l.gone, l.killed, l.expired, l.exit = false, false, false, false, ""
	l.life++
	m.cfg.Workers[n] = c
	m.out[n].close()
	m.out[n] = newOutbox(c)
	m.heard(int(n))
	m.listen(int(n), c, l.life)
	m.send(n, wire.Msg{Start: &wire.Start{EpochUnixNano: m.epochWall.UnixNano()}})
	m.jt.NodeRestored(n)
}

// loseNode declares node d lost: the tracker ends its attempts, runs
// again the maps whose output it held, forgets its replicas and takes its
// slots out of the cluster.
func (m *Master) loseNode(d cluster.NodeID) {
	m.jt.NodeDown(d) // it is, whatever told the master so
	m.jt.NodeLost(d)
	m.lives[d].gone = true
	m.lost = append(m.lost, d)
}

// wallOfScenario is the wall-clock instant of scenario time t.
func (m *Master) wallOfScenario(t float64) time.Time {
	return m.wall0.Add(time.Duration((t - m.t0) * m.cfg.TimeScale * float64(time.Second)))
}
