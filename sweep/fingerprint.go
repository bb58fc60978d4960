package sweep

import "github.com/mrsched/mrsched/scenario"

// workloadOf builds a run's scenario, checking every setting as a run
// would, and returns the fingerprint of the jobs and cluster it makes
// (scenario.Fingerprint, which a run's summary.json records as
// workload_fingerprint). The plan records it for each run; a run and
// collect check it, so that runs of different workloads are never averaged
// together. Every use goes through here.
func workloadOf(c *scenario.Config) (string, error) {
	t, jobs, _, err := c.Build()
	if err != nil {
		return "", err
	}
	return scenario.Fingerprint(t.Config(), jobs), nil
}
