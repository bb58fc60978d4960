package master

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/testbed/wire"
)

// The stall watch. Whatever the cause (a bug, a fault nothing survives),
// a testbed run never waits silently: the master notes the wall instant
// of the last progress (a byte moved on any node's data plane, a transfer
// finished, a task launched or ended, an attempt in a paced phase, a job
// submitted, a node lost), and when nothing has progressed for
// Config.StallWall while jobs wait, it asks every worker what each of its
// attempts waits on and ends the run with an error naming every waiting
// task, on what, and since when.

// progressed notes progress now.
func (m *Master) progressed() { m.lastMove = time.Now() }

// beat reads a heartbeat's progress: bytes moved since the node's last
// beat, or attempts in paced phases.
func (m *Master) beat(n int, hb *wire.Heartbeat) {
	if hb.Moved > m.moved[n] || hb.Paced > 0 {
		m.progressed()
	}
	m.moved[n] = max(m.moved[n], hb.Moved)
}

// watchStall ends the run if nothing has progressed for the stall bound.
func (m *Master) watchStall(now time.Time) {
	if len(m.jt.Jobs()) == 0 {
		m.lastMove = now
		return
	}
	if m.cfg.StallWall <= 0 || now.Sub(m.lastMove) <= m.cfg.StallWall {
		return
	}
	m.stall = m.diagnose(now)
	m.fail("stalled: nothing has moved for %.0f s of wall time (testbed.stall_s %.0f s) while %d jobs wait; policy %s; waiting:\n  %s",
		now.Sub(m.lastMove).Seconds(), m.cfg.StallWall.Seconds(), len(m.jt.Jobs()), m.pol.Name(), strings.Join(m.stall, "\n  "))
}

// statusWait is how long the diagnosis waits for the workers' answers.
const statusWait = 2 * time.Second

// diagnose lists what every unfinished job waits on: its running attempts
// as the master sees them and as their workers describe them, its pending
// tasks, and the nodes that are silent or down.
func (m *Master) diagnose(now time.Time) []string {
	asked := map[int]bool{}
	for n := range m.lives {
		if !m.lives[n].down {
			m.send(cluster.NodeID(n), wire.Msg{StatusRequest: &wire.StatusRequest{}})
			asked[n] = true
		}
	}
	answers := map[int][]string{}
	deadline := time.NewTimer(statusWait)
	defer deadline.Stop()
wait:
	for len(answers) < len(asked) {
		select {
		case r := <-m.in:
			if r.err == nil && r.msg.Status != nil && r.life == m.lives[r.node].life {
				answers[r.node] = r.msg.Status.Attempts
				continue
			}
			m.handle(r)
		case <-deadline.C:
			break wait
		}
	}
	var out []string
	ago := func(t float64) string {
		return fmt.Sprintf("since t=%.1f s (%.1f s of wall time ago)", t, (m.Now()-t)*m.cfg.TimeScale)
	}
	for _, sj := range m.jt.Jobs() {
		jr := m.jobs[sj.Index]
		for _, ref := range m.jt.RunningTasks(sj) {
			out = append(out, fmt.Sprintf("job %d %s %d attempt %d on node %s, running %s", sj.Index, ref.Kind, ref.Index, jr.at(ref.Kind, ref.Index).n,
				faults.NodeName(m.cfg.Topology, ref.Node), ago(ref.Start)))
		}
		if idle := sj.PendingMaps(); idle > 0 {
			out = append(out, fmt.Sprintf("job %d: %d maps pending, waiting for a slot the policy gives them", sj.Index, idle))
		}
		if idle := sj.PendingReduces(); idle > 0 && sj.ReducesEnabled {
			out = append(out, fmt.Sprintf("job %d: %d reduces pending, waiting for a slot the policy gives them", sj.Index, idle))
		} else if idle > 0 {
			out = append(out, fmt.Sprintf("job %d: %d reduces not yet enabled (%d of %d maps finished, slow start %g)",
				sj.Index, idle, sj.FinishedMaps, sj.NumMaps, *m.cfg.Engine.SlowStart))
		}
	}
	for _, n := range slices.Sorted(func(yield func(int) bool) {
		for n := range answers {
			if !yield(n) {
				return
			}
		}
	}) {
		for _, a := range answers[n] {
			out = append(out, fmt.Sprintf("node %s says: %s", faults.NodeName(m.cfg.Topology, cluster.NodeID(n)), a))
		}
	}
	for n := range m.lives {
		name := faults.NodeName(m.cfg.Topology, cluster.NodeID(n))
		switch l := &m.lives[n]; {
		case l.gone:
			out = append(out, fmt.Sprintf("node %s is lost", name))
		case l.down:
			out = append(out, fmt.Sprintf("node %s is down (%s), not yet expired; last heard %.1f s ago", name, l.exit, now.Sub(m.lastHeard[n]).Seconds()))
		case asked[n] && answers[n] == nil:
			out = append(out, fmt.Sprintf("node %s did not answer within %v; last heard %.1f s ago", name, statusWait, now.Sub(m.lastHeard[n]).Seconds()))
		}
	}
	return out
}
