package main

import "github.com/mrsched/mrsched/scenario"

// perf is what a run cost on this machine (scenario.Perf): written to
// perf.json and stderr, never into summary.json.
type perf = scenario.Perf

// perfReport gathers a run's cost.
var perfReport = scenario.NewPerf
