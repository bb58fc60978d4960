package sched

import (
	"math"

	"github.com/mrsched/mrsched/cluster"
)

// IO-rate biasing (Fair Scheduler paper, section 4.3.2, evaluated in 6.2.4)
// is a DelayPlacer option (DelayParams.IORateBiasing): "it is best to launch
// CPU-intensive tasks non-locally, while running IO-bound tasks locally",
// implemented "by simply setting the wait times T1 and T2 for CPU-bound jobs
// lower than for IO-bound jobs". The paper sets the two classes' waits by
// hand (6.2.4: T1 = 10 s for scans, 0 s for compute jobs); here a job's class
// is measured:
//
//   - A job's IO rate is the bytes its maps read per task-second: its mean
//     input per map (Spec.InputBytes / NumMaps) over the mean duration,
//     launch to end, of its finished node-local maps. Only node-local maps
//     count: a remote map's duration includes the network's throttling, so
//     counting it would make an IO-bound job that had to run remotely look
//     CPU-bound, and then run it remotely more.
//   - Once IOMinMaps node-local maps have finished, a job whose rate is below
//     IOBoundMBPerS is CPU-bound and gets CPUBoundT1S and CPUBoundT2S; a job
//     at or above it gets T1S and T2S.
//   - A job not yet measured takes the class last measured for a job of its
//     pool, and with none it is IO-bound (the full waits, delay scheduling's
//     default). Jobs of one pool are often alike (6.2.4's workers each
//     resubmit one kind of job), and a job's first local map may take
//     longer than the wait it should have had: a 36 s compute map measured
//     only after a 10 s wait has expired would change nothing.
//
// The observer events carry a task's job, kind and node but not its index,
// so durations are matched by node: each (job, node) keeps a FIFO of its
// running maps' launch times, a finished map takes the oldest, and a killed
// one the newest (preemption kills the most recently launched tasks). A
// job's maps on one node are alike and end nearly in launch order, so the
// sum of their durations is exact once they have all ended and close
// before. A launch's locality is known from the placer's own decision; a
// finished map counts as node-local when the launch the FIFO pairs it with
// was, which is exact when the job's maps on that node are all local or
// all remote, and nearly so otherwise.
type ioState struct {
	running   map[cluster.NodeID][]ioLaunch // lookup only, never iterated
	localMaps int
	localSecs float64
	measured  bool
	cpuBound  bool
}

type ioLaunch struct {
	t     float64
	local bool
}

func (s *ioState) launched(n cluster.NodeID, now float64, local bool) {
	if s.running == nil {
		s.running = map[cluster.NodeID][]ioLaunch{}
	}
	s.running[n] = append(s.running[n], ioLaunch{t: now, local: local})
}

func (s *ioState) ended(n cluster.NodeID, now float64, killed bool) {
	q := s.running[n]
	if len(q) == 0 {
		return // launched before the placer saw it
	}
	var l ioLaunch
	if killed {
		l, q = q[len(q)-1], q[:len(q)-1]
	} else {
		l, q = q[0], q[1:]
		if l.local {
			s.localMaps++
			s.localSecs += now - l.t
		}
	}
	if len(q) == 0 {
		delete(s.running, n)
	} else {
		s.running[n] = q
	}
}

// rate is the job's measured IO rate in bytes per task-second.
func (s *ioState) rate(j *Job) (float64, bool) {
	if s.localMaps == 0 || j.Spec == nil || j.NumMaps == 0 {
		return 0, false
	}
	bytes := float64(j.Spec.InputBytes) / float64(j.NumMaps) * float64(s.localMaps)
	switch {
	case s.localSecs > 0:
		return bytes / s.localSecs, true
	case bytes > 0:
		return math.Inf(1), true
	}
	return 0, true
}

func (s *ioState) classify(j *Job, ioBound float64, minMaps int) bool {
	if s.localMaps < minMaps {
		return false
	}
	r, ok := s.rate(j)
	if ok {
		s.measured, s.cpuBound = true, r < ioBound
	}
	return ok
}

// cpuBoundOf is job j's class: measured, else its pool's last, else
// IO-bound.
func (p *DelayPlacer) cpuBoundOf(s *delayJob, j *Job) bool {
	if !p.biasing {
		return false
	}
	if s.io.measured {
		return s.io.cpuBound
	}
	return p.poolCPU[j.Pool]
}

// waitsOf is job j's T1 and T2 under IO-rate biasing.
func (p *DelayPlacer) waitsOf(s *delayJob, j *Job) (t1, t2 float64) {
	if p.cpuBoundOf(s, j) {
		return p.cpuT1, p.cpuT2
	}
	return p.t1, p.t2
}

// IORate is job j's measured IO rate in bytes per task-second, and whether
// it has one yet (IO-rate biasing on, a node-local map finished).
func (p *DelayPlacer) IORate(j *Job) (bytesPerSec float64, ok bool) {
	return p.state(j).io.rate(j)
}

// CPUBound reports whether IO-rate biasing treats job j as CPU-bound:
// measured so, or not yet measured and its pool's last measured job was.
func (p *DelayPlacer) CPUBound(j *Job) bool { return p.cpuBoundOf(p.state(j), j) }
