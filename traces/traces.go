// Package traces ships the two public Facebook MapReduce workload traces of the
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

//go:embed FB-2009_samples_24_times_1hr_0.tsv
var fb2009 []byte

//go:embed FB-2010_samples_24_times_1hr_0.tsv
var fb2010 []byte

// FB2009 returns the SWIM FB-2009 trace (5,894 jobs over 24 hours) as TSV bytes.
// The slice is shared: callers must not modify it.
func FB2009() []byte { return fb2009 }

// FB2010 returns the SWIM FB-2010 trace (24,442 jobs over 24 hours, the trace the
// NAS paper replays) as TSV bytes. The slice is shared: callers must not modify it.
func FB2010() []byte { return fb2010 }

// Names lists the names of the embedded traces, in a stable order, for help
// texts and error messages.
func Names() []string { return []string{FB2009Name, FB2010Name} }

// Embedded looks an embedded trace up by name, case-insensitively, with or
// without the dash ("FB-2010", "fb2010"). It returns the trace bytes, the node
// count of the cluster it was recorded on, and whether the name is known.
func Embedded(name string) (data []byte, sourceNodes int, ok bool) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "fb-2009", "fb2009":
		return fb2009, FB2009SourceNodes, true
	case "fb-2010", "fb2010":
		return fb2010, FB2010SourceNodes, true
	}
	return nil, 0, false
}
