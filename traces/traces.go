// Package traces ships the public Facebook MapReduce workload traces of the
// SWIM project (UC Berkeley, BSD licence: see LICENSE-SWIM) inside the binary,
// so that a simulation of a real workload needs no file beside the program.
//
// The bytes are returned as stored; parse them with workload.ParseSWIM, giving
// the source cluster size returned by Embedded (or the SourceNodes constants).
package traces

import (
	_ "embed"
	"strings"
)

// FB2009Name is the name under which the 2009 trace is known (Embedded accepts it).
const FB2009Name = "FB-2009"

// FB2009SourceNodes is the node count of the Facebook cluster the 2009 trace was
// sampled from (600 machines, per the SWIM workload suite README); byte scaling
// for a smaller simulated cluster divides by this.
const FB2009SourceNodes = 600

// FB2010Name is the name under which the 2010 trace is known (Embedded accepts it).
const FB2010Name = "FB-2010"

// FB2010SourceNodes is the node count of the Facebook cluster the 2010 trace was
// sampled from (3,000 machines, per the SWIM project); byte scaling divides by this.
const FB2010SourceNodes = 3000

// FB2010PathsName is the name under which the 2010 trace with input paths
// is known (Embedded accepts it).
const FB2010PathsName = "FB-2010-paths"

//go:embed FB-2009_samples_24_times_1hr_0.tsv
var fb2009 []byte

//go:embed FB-2010_samples_24_times_1hr_0.tsv
var fb2010 []byte

// The trace with input paths is embedded as well: at 1.3 MB it adds 4% to
// a 35 MB binary, and a named trace then runs from any directory, as the
// other two do.
//
//go:embed FB-2010_samples_24_times_1hr_withInputPaths_0.tsv
var fb2010Paths []byte

// FB2009 returns the SWIM FB-2009 trace (5,894 jobs over 24 hours) as TSV bytes.
// The slice is shared: callers must not modify it.
func FB2009() []byte { return fb2009 }

// FB2010 returns the SWIM FB-2010 trace (24,442 jobs over 24 hours, the trace the
// NAS paper replays) as TSV bytes. The slice is shared: callers must not modify it.
func FB2010() []byte { return fb2010 }

// FB2010Paths returns SWIM's FB-2010 day with input paths (25,428 jobs over
// 24 hours reading 17,158 distinct paths; a sample of the 2010 trace of its
// own, not the FB2010 day with paths added) as nine-column TSV bytes. It
// was traced on the FB2010SourceNodes cluster. The slice is shared:
// callers must not modify it.
func FB2010Paths() []byte { return fb2010Paths }

// Names lists the names of the embedded traces, in a stable order, for help
// texts and error messages.
func Names() []string { return []string{FB2009Name, FB2010Name, FB2010PathsName} }

// SynthesisPaths reports whether the named embedded trace's input paths
// are the anonymised names SWIM's WorkloadSynthesis.pl writes, which
// workload.ParseSWIM renumbers when told (workload.SWIMOptions).
func SynthesisPaths(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "fb-2010-paths", "fb2010-paths":
		return true
	}
	return false
}

// Embedded looks an embedded trace up by name, case-insensitively, with or
// without the first dash ("FB-2010", "fb2010", "fb2010-paths"). It returns the trace bytes, the node
// count of the cluster it was recorded on, and whether the name is known.
func Embedded(name string) (data []byte, sourceNodes int, ok bool) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "fb-2009", "fb2009":
		return fb2009, FB2009SourceNodes, true
	case "fb-2010", "fb2010":
		return fb2010, FB2010SourceNodes, true
	case "fb-2010-paths", "fb2010-paths":
		return fb2010Paths, FB2010SourceNodes, true
	}
	return nil, 0, false
}
