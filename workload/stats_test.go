package workload

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	jobs := []Job{
		{ID: 0, Submit: 5, InputBytes: 1e9, ShuffleBytes: 500, OutputBytes: 10, NumMaps: 8, NumReduces: 1},
		{ID: 1, Submit: 65, InputBytes: 2e9, ShuffleBytes: 5e6, OutputBytes: 20, NumMaps: 16, NumReduces: 2},
		{ID: 2, Submit: 3605, InputBytes: 3e9, ShuffleBytes: 2e8, OutputBytes: 30, NumMaps: 24, NumReduces: 3},
		{ID: 3, Submit: 3605, InputBytes: 0, ShuffleBytes: 1e9, OutputBytes: 40, NumMaps: 1, NumReduces: 15},
	}
	s := Summarize(jobs)
	want := Stats{
		Jobs: 4, InputBytes: 6e9, ShuffleBytes: 500 + 5e6 + 2e8 + 1e9, OutputBytes: 100,
		Classes: [NumClasses]int{1, 1, 2}, FirstSubmit: 5, LastSubmit: 3605, Maps: 49, Reduces: 21,
	}
	if s != want {
		t.Errorf("Summarize = %+v\nwant        %+v", s, want)
	}
	if got := s.ClassPercent(ClassHeavy); got != 50 {
		t.Errorf("heavy share %v%%, want 50%% (2 of 4 jobs shuffle > 100 MB)", got)
	}
	var b strings.Builder
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range []string{"jobs", "input", "6.0 GB", "shuffle-light (< 1 MB)", "1 (25.0%)", "shuffle-heavy (> 100 MB)", "2 (50.0%)", "5.0 s to 3605.0 s (span 3600.0 s, 1.00 h)", "maps", "49", "reduces", "21"} {
		if !strings.Contains(out, line) {
			t.Errorf("Write output lacks %q:\n%s", line, out)
		}
	}
	if strings.Contains(out, "data sets") {
		t.Errorf("Write output names data sets for jobs that read none:\n%s", out)
	}
	if (Summarize(nil) != Stats{}) {
		t.Errorf("Summarize(nil) should be the zero Stats")
	}
}

// TestSummarizeCountsDataSets: jobs naming one path read one data set; a
// job without one reads a file of its own, not a data set.
func TestSummarizeCountsDataSets(t *testing.T) {
	jobs := []Job{{DataSet: "inputPath1"}, {DataSet: "inputPath2"}, {DataSet: "inputPath1"}, {}}
	s := Summarize(jobs)
	if s.DataSets != 2 {
		t.Errorf("DataSets = %d, want 2 (inputPath1 twice, inputPath2, one job without)", s.DataSets)
	}
	var b strings.Builder
	if err := s.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^data sets +2$`).MatchString(b.String()) {
		t.Errorf("Write output lacks the data sets line:\n%s", b.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestStatsWriteError(t *testing.T) {
	if err := Summarize(nil).Write(failWriter{}); err == nil {
		t.Errorf("Write to a failing writer returned nil, want its error")
	}
}
