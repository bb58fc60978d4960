package master

import (
	"fmt"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/testbed/wire"
)

// Fetch failures, as Hadoop's JobTracker takes them (JobInProgress's
// fetchFailureNotification; JobImpl's in YARN): a reduce reports every
// fetch that failed, naming the maps and the host; a failure is not taken
// for the host's death (only heartbeat expiry declares a node lost), but
// once a map's current output has drawn MaxFetchFailureReports reports,
// and they come from at least MaxFetchFailureFraction of the job's running
// reduces, the map is run again: its output is declared obsolete to the
// reduces, which wait for its new place.
const (
	// MaxFetchFailureReports is JobInProgress's
	// MAX_FETCH_FAILURES_NOTIFICATIONS (mapreduce.reduce.shuffle.
	// max-fetch-failures-notifications in later Hadoop), 3.
	MaxFetchFailureReports = 3
	// MaxFetchFailureFraction is JobImpl's
	// MAX_ALLOWED_FETCH_FAILURES_FRACTION (mapreduce.reduce.shuffle.
	// max-fetch-failures-fraction), 0.5: reports over the job's running
	// reduces.
	MaxFetchFailureFraction = 0.5
)

// fetchFailed takes a fetch-failure report from node n's worker.
func (m *Master) fetchFailed(n cluster.NodeID, ff *wire.FetchFailed) {
	m.fetchFailures = append(m.fetchFailures, fmt.Sprintf("t=%.3f s: %s on node %d: maps %v from node %d: %s",
		m.Now(), ff.Attempt, n, ff.Maps, ff.Node, ff.Err))
	a := ff.Attempt
	if a.Job < 0 || a.Job >= len(m.jobs) || m.jobs[a.Job] == nil || m.jobs[a.Job].done {
		return
	}
	jr := m.jobs[a.Job]
	sj := m.jt.Job(a.Job)
	var again []int
	for _, i := range ff.Maps {
		if i < 0 || i >= len(jr.mapNode) || jr.mapNode[i] != cluster.NodeID(ff.Node) {
			continue // an output already moved: the report is about an old one
		}
		jr.fetchFails[i]++
		rate := 1.0
		if r := sj.RunningReduces; r > 0 {
			rate = float64(jr.fetchFails[i]) / float64(r)
		}
		if jr.fetchFails[i] >= MaxFetchFailureReports && rate >= MaxFetchFailureFraction {
			m.reexecuted = append(m.reexecuted, fmt.Sprintf("t=%.3f s: job %d map %d, its output on node %d: %d fetch-failure reports with %d reduces running",
				m.Now(), a.Job, i, ff.Node, jr.fetchFails[i], sj.RunningReduces))
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		m.lastProgress = m.Now()
		m.jt.RerunMaps(a.Job, cluster.NodeID(ff.Node), again)
	}
}
