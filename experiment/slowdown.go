package experiment

import (
	"fmt"

	"github.com/mrsched/mrsched/workload"
)

// soloPolicy runs a job alone. With one job every order yields the same
// job and every locality-first placement the same map, so FIFO stands for
// all of them.
var soloPolicy = PolicySpec{Label: "alone", Name: "fifo"}

// soloRuns are the runs that time each job alone on s: a one-job workload
// holding the job with ID 0, submitted at time 0. The job keeps its name, so
// it reads the same block replicas as in company (see newJob).
func soloRuns(s Setup, jobs []workload.Job) []simRun {
	runs := make([]simRun, len(jobs))
	for i, j := range jobs {
		j.ID, j.Submit = 0, 0
		runs[i] = simRun{setup: s, jobs: []workload.Job{j}, policy: soloPolicy}
	}
	return runs
}

func soloTimes(out []*outcome) ([]float64, error) {
	t := make([]float64, len(out))
	for i, o := range out {
		t[i] = o.turnaround(0)
		if !(t[i] > 0) {
			return nil, fmt.Errorf("job %d alone: turnaround %v, want positive", i, t[i])
		}
	}
	return t, nil
}

// divide is each job's slowdown: its turnaround over its turnaround
// alone (the Fair Scheduler paper's section 5.3 slowdown, for which the
// solo runs are on the same cluster with copy-compute splitting on).
func divide(turnaround, solo []float64) ([]float64, error) {
	sd := make([]float64, len(turnaround))
	for i := range sd {
		if turnaround[i] < 0 {
			return nil, fmt.Errorf("job %d did not finish", i)
		}
		sd[i] = turnaround[i] / solo[i]
	}
	return sd, nil
}
