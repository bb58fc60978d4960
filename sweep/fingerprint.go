package sweep

import "github.com/mrsched/mrsched/scenario"

// workloadOf is the fingerprint of the work a run's scenario gives its
// cluster, which the plan records and a run and collect check: runs of
// different workloads are never averaged together. Every use goes through
// here, so that the sweep follows one definition of a workload.
func workloadOf(c *scenario.Config) (string, error) { return c.WorkloadFingerprint() }
