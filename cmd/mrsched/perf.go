package main

import "github.com/mrsched/mrsched/scenario"

// perfReport is what a run cost on this machine (scenario.Perf): written to
// perf.json and stderr, never into summary.json.
var perfReport = scenario.NewPerf
