package master

import "time"

// Now is the scenario time: the first submission's time plus the wall
// time since the run started, over the time scale. The job tracker, the
// policies' view of the cluster, reads it once a handler (SetNow), so
// that time stops moving while a handler runs.
func (m *Master) Now() float64 { return m.scenarioTime(time.Now()) }

func (m *Master) scenarioTime(t time.Time) float64 {
	return m.t0 + t.Sub(m.wall0).Seconds()/m.cfg.TimeScale
}
