// Package mrsched carries, inside every binary that imports it, the Go
// source of the packages a simulation's result depends on (Sources), so
// that the binary can tell which source built it without any build flag:
// a plain `go build` or `go run` embeds the files as they are on disk.
// Kept experiment runs (experiment.Options.KeepDir) are keyed by it.
package mrsched

import "embed"

// Sources holds the Go files of every package of this module that an
// experiment's result depends on: the engine, its job tracker and the
// network, the cluster, workload, traces, scenario and fault models, the
// policies, the metrics, the report's tables, sweeps and the experiments
// themselves (experiment's imports within the module;
// TestSourcesCoverExperiment keeps the list whole). Test files are embedded too, as a pattern cannot
// leave them out; the key skips them. Docs are not embedded, so a commit
// that changes only docs keeps kept runs valid.
//
//go:embed cluster/*.go cluster/hostmap/*.go experiment/*.go experiment/harness/*.go experiment/probe/*.go faults/*.go metrics/*.go network/*.go report/*.go scenario/*.go sched/*.go sched/allocations/*.go sim/*.go sweep/*.go traces/*.go workload/*.go workload/hadooptrace/*.go internal/jsonstream/*.go internal/avro/*.go internal/gzfile/*.go jobtracker/*.go critpath/*.go decisions/*.go
var Sources embed.FS
