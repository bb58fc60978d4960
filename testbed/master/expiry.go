package master

import (
	"errors"
	"fmt"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/testbed/wire"
)

// Node loss by expiry, whatever the cause. A worker that dies (its
// process killed or crashed), or that stops heartbeating (frozen, starved),
// is taken for lost once engine.node_expiry_s of scaled wall time has
// passed since its last message, as Hadoop's JobTracker expires a
// TaskTracker: the loss is what a faults: loss is (its running attempts
// killed, the map outputs it held run again, its replicas forgotten, its
// slots out of the cluster), with the same accounting. The run goes on.
// A worker's exit alone ends nothing: it is noted, and the node expires.
//
// A worker that speaks again after its node expired (a frozen process
// resumed) is told what Hadoop's JobTracker tells a tracker it no longer
// knows, to reinitialise: its process is killed, with every attempt and
// output it held, and a new, empty worker takes the node back, as a
// faults: restore does.

// minExpiryWall bounds the heartbeat expiry below, in wall seconds: a
// host busy for a second or two (a build, a page-cache flush) must not
// lose a node that is only late.
const minExpiryWall = 3 * time.Second

// expiryWall is how long a worker may be silent before its node is lost.
func (m *Master) expiryWall() time.Duration {
	e := &m.cfg.Engine
	d := time.Duration(e.NodeExpiryS * m.cfg.TimeScale * float64(time.Second))
	// Ten heartbeats at least, as Hadoop's 10 minutes are 200 of its
	// 3-second beats.
	hb := time.Duration(10 * e.HeartbeatS * m.cfg.TimeScale * float64(time.Second))
	if m.cfg.HeartbeatWallS > 0 {
		hb = time.Duration(10 * m.cfg.HeartbeatWallS * float64(time.Second))
	}
	return max(d, hb, minExpiryWall)
}

// faultsOn says whether the run accounts faults: it has a faults:
// section, or has lost a node by expiry.
func (m *Master) faultsOn() bool { return len(m.cfg.Faults) > 0 || len(m.lost) > 0 }

// heard notes that node n's worker of the current life spoke.
func (m *Master) heard(n int) { m.lastHeard[n] = time.Now() }

// expireSilent declares lost every node whose worker has been silent
// longer than the expiry (nodes a faults: kill took are expired by its
// schedule instead).
func (m *Master) expireSilent(now time.Time) {
	limit := m.expiryWall()
	for n := range m.lives {
		l := &m.lives[n]
		if l.gone || l.killed || now.Sub(m.lastHeard[n]) <= limit {
			continue
		}
		why := fmt.Sprintf("no heartbeat for %.1f s (engine.node_expiry_s %g s, scaled)", now.Sub(m.lastHeard[n]).Seconds(), m.cfg.Engine.NodeExpiryS)
		if l.exit != "" {
			why += "; " + l.exit
		}
		m.expire(cluster.NodeID(n), why)
	}
}

// expire declares node n lost by expiry.
func (m *Master) expire(n cluster.NodeID, why string) {
	l := &m.lives[n]
	l.down, l.expired = true, true
	l.life++ // what the old worker says from now on is stale
	m.col.EnableFaults()
	m.progressed()
	m.losses = append(m.losses, fmt.Sprintf("t=%.3f s: node %s lost: %s", m.Now(), faults.NodeName(m.cfg.Topology, n), why))
	m.loseNode(n)
}

// workerGone notes that node n's worker exited or broke its pipe: nothing
// more is sent to it, and its node expires in time.
func (m *Master) workerGone(n int, err error) {
	l := &m.lives[n]
	if l.down {
		return
	}
	l.down = true
	m.jt.NodeDown(cluster.NodeID(n))
	what := fmt.Sprintf("its worker exited at t=%.3f s", m.Now())
	if !errors.Is(err, wire.ErrClosed) {
		what = fmt.Sprintf("its worker's pipe broke at t=%.3f s: %v", m.Now(), err)
	}
	if m.cfg.WorkerNote != nil {
		what += m.cfg.WorkerNote(n)
	}
	l.exit = what
	m.events = append(m.events, fmt.Sprintf("node %s: %s", faults.NodeName(m.cfg.Topology, cluster.NodeID(n)), what))
}

// returned handles a message from node n's expired worker: it is killed,
// and a new one takes the node back.
func (m *Master) returned(n cluster.NodeID) {
	l := &m.lives[n]
	l.expired = false
	m.events = append(m.events, fmt.Sprintf("t=%.3f s: node %s's worker spoke after its node expired: told to reinitialise (killed, its work discarded, a new empty worker started)",
		m.Now(), faults.NodeName(m.cfg.Topology, n)))
	if m.cfg.Kill == nil || m.cfg.Restore == nil {
		return
	}
	if err := m.cfg.Kill(int(n)); err != nil {
		m.fail("killing the returned worker of node %s: %v", faults.NodeName(m.cfg.Topology, n), err)
		return
	}
	m.restoreNode(n)
}

// outbox sends a worker's messages in order without ever blocking the
// master: a frozen worker stops reading its pipe, and a master blocked on
// it would stop the whole run.
type outbox struct {
	ch   chan wire.Msg
	full bool
}

// outboxDepth bounds the messages queued to one worker; a worker this far
// behind has stopped reading, and its node expires.
const outboxDepth = 1 << 14

func newOutbox(c *wire.Conn) *outbox {
	o := &outbox{ch: make(chan wire.Msg, outboxDepth)}
	go func() {
		for msg := range o.ch {
			if c.Send(msg) != nil {
				for range o.ch { // the worker is gone: drain, its node expires
				}
				return
			}
		}
	}()
	return o
}

// put queues msg; false if the worker has stopped reading.
func (o *outbox) put(msg wire.Msg) bool {
	select {
	case o.ch <- msg:
		return true
	default:
		o.full = true
		return false
	}
}

func (o *outbox) close() { close(o.ch) }
