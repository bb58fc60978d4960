package workload

import (
	"bytes"
	"testing"

	"github.com/mrsched/mrsched/traces"
)

// TestFB2010PathsTrace: the embedded trace with input paths loads whole,
// every job names a data set, and renumbered, no job reads a data set
// before the line that first names it, as the script's numbering of paths
// by their first appearance implies.
func TestFB2010PathsTrace(t *testing.T) {
	data, nodes, ok := traces.Embedded(traces.FB2010PathsName)
	if !ok || nodes != 3000 {
		t.Fatalf("traces.Embedded(%q) = ok %v, %d nodes; want the embedded trace, traced on 3,000 nodes", traces.FB2010PathsName, ok, nodes)
	}
	if !traces.SynthesisPaths(traces.FB2010PathsName) {
		t.Errorf("%s's paths are WorkloadSynthesis.pl's names; SynthesisPaths must say so", traces.FB2010PathsName)
	}
	for _, synthesis := range []bool{false, true} {
		opt := unscaled(nodes)
		opt.SynthesisPaths = synthesis
		jobs, err := ParseSWIM(bytes.NewReader(data), traces.FB2010PathsName, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != 25428 {
			t.Errorf("%d jobs, want 25,428 (one a line)", len(jobs))
		}
		if err := Validate(jobs); err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(data, []byte("\n"))
		readers := map[string]int{}
		firstNamed := map[string]bool{}
		early := 0
		for _, j := range jobs {
			if j.DataSet == "" {
				t.Fatalf("job %s names no data set; every line of the trace has an input path", j.Name)
			}
			readers[j.DataSet]++
			firstNamed[string(bytes.Split(lines[j.ID], []byte("\t"))[6])] = true
			if !firstNamed[j.DataSet] {
				early++
			}
		}
		if len(readers) != 17158 {
			t.Errorf("synthesis %v: %d data sets, want the trace's 17,158 paths", synthesis, len(readers))
		}
		switch {
		case synthesis && early > 0:
			t.Errorf("renumbered, %d jobs read a data set before a line names it: the renumbering does not match the script's numbering", early)
		case synthesis && (readers["inputPath7"] != 1 || readers["inputPath8"] != 143):
			t.Errorf("renumbered, inputPath7 has %d readers and inputPath8 %d; want 1 and 143 (the 142 later lines named inputPath7 read path 8)",
				readers["inputPath7"], readers["inputPath8"])
		case !synthesis && readers["inputPath7"] != 143:
			t.Errorf("as written, inputPath7 has %d readers, want the 143 lines naming it", readers["inputPath7"])
		}
	}
}
