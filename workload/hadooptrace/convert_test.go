package hadooptrace

import (
	"math"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/workload"
)

func scanAll(t *testing.T, trace string, scan func(r *strings.Reader, fn func(*Job) error) error) []*Job {
	t.Helper()
	var jobs []*Job
	if err := scan(strings.NewReader(trace), func(j *Job) error { jobs = append(jobs, j); return nil }); err != nil {
		t.Fatal(err)
	}
	return jobs
}

func rumen(r *strings.Reader, fn func(*Job) error) error { return ScanRumen(r, "t.json", fn) }

// TestConvertRules pins Convert's rules on a trace whose second job was
// submitted first, is map-only and failed, and whose first job is repeated.
func TestConvertRules(t *testing.T) {
	late := strings.Replace(rumenJob, `"submitTime":1000`, `"submitTime":9000`, 1)
	traced := scanAll(t, late+rumenMapOnly, rumen)
	jobs, st, err := Convert(traced, ConvertOptions{Profile: workload.DefaultProfile()})
	if err != nil {
		t.Fatal(err)
	}
	if err := workload.Validate(jobs); err != nil {
		t.Fatalf("converted jobs are not a valid workload: %v", err)
	}
	if st.Duplicates != 1 || st.MapOnly != 1 || len(jobs) != 2 {
		t.Fatalf("stats %+v, %d jobs; want 1 duplicate dropped, 1 map-only job, 2 jobs", st, len(jobs))
	}
	first, second := jobs[0], jobs[1]
	if first.Name != "job_1_0002" || first.Submit != 0 || second.Submit != 4 {
		t.Errorf("order %s at %v, %s at %v; want job_1_0002 first at 0 s, job_1_0001 4 s later", first.Name, first.Submit, second.Name, second.Submit)
	}
	if first.NumMaps != 2 || first.NumReduces != 1 || first.ShuffleBytes != 0 || first.OutputBytes != 7 || first.Measured.Succeeded {
		t.Errorf("map-only failed job %+v; want 2 maps, one empty reduce writing the maps' 7 bytes, not succeeded", first)
	}
	if got := first.Measured.MapInputs; len(got) != 2 || got[0] != 64 || got[1] != 64 {
		t.Errorf("map inputs %v; want each map's traced 64 bytes", got)
	}
	if second.Pool != "alice" || second.UserName != "alice" || second.Queue != "prod" || first.Pool != "bob" || first.User == second.User {
		t.Errorf("pools %s/%s, users %d/%d; want each user's own pool and number", first.Pool, second.Pool, first.User, second.User)
	}
	if second.Profile.MapMemGB != 1.5 {
		t.Errorf("map memory %v GB; want jobMapMB 1536 as 1.5", second.Profile.MapMemGB)
	}
	if h := second.Measured.MapHosts; len(h) != 2 || len(h[0]) != 1 || h[0][0] != "h1" || h[1] != nil {
		t.Errorf("map hosts %v; want the first map's preferred h1, none for the second", h)
	}
	if m := second.Measured; m.DurationS != 52 || m.MapS[0] != 6 || m.MapHost[0] != "h2" || m.ReduceS[0] != 11 {
		t.Errorf("measured %+v; want 52 s (finish 61 s less submit 9 s), map 0 6 s on h2 (its successful attempt), reduce 11 s", m)
	}
	// A window keeps the jobs submitted in it, counted from its start.
	jobs, _, err = Convert(traced, ConvertOptions{Profile: workload.DefaultProfile(), StartS: 1})
	if err != nil || len(jobs) != 1 || jobs[0].Submit != 3 {
		t.Errorf("window from 1 s: %d jobs, %v; want job_1_0001 at 3 s", len(jobs), err)
	}
	if _, _, err := Convert(scanAll(t, `{"jobID":"j"}`, rumen), ConvertOptions{Profile: workload.DefaultProfile()}); err == nil || !strings.Contains(err.Error(), "submit") {
		t.Errorf("a job without times: %v; want an error naming its submit time", err)
	}
}

func TestConvertSLSByteModel(t *testing.T) {
	traced := scanAll(t, slsJobs, func(r *strings.Reader, fn func(*Job) error) error { return ScanSLS(r, "s.json", fn) })
	jobs, st, err := Convert(traced, ConvertOptions{Profile: workload.DefaultProfile(), Bytes: DefaultSLSByteModel(128 << 20)})
	if err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	if st.Modelled != 2 || j.InputBytes != 2*128<<20 || j.ShuffleBytes != j.InputBytes || j.OutputBytes != j.ShuffleBytes {
		t.Errorf("job %+v; want a block a map, shuffle and output equal to input (ratios 1)", j)
	}
	if m := jobs[1]; m.ShuffleBytes != 0 || m.OutputBytes != 128<<20 {
		t.Errorf("map-only SLS job: shuffle %d, output %d; want 0 and its input", m.ShuffleBytes, m.OutputBytes)
	}
}

// TestMeasuredProfile checks the split by hand: two maps of 100 and 300
// bytes measured 12 s and 20 s with a 2 s start-up do 10 + 18 s of work
// over 400 bytes; a reduce of 400 shuffle bytes whose reduce function and
// write took 9 s, writing 100 bytes at min(disk 100, NIC 50) = 50 B/s,
// computes 9 - 2 = 7 s.
func TestMeasuredProfile(t *testing.T) {
	j := workload.Job{NumMaps: 2, NumReduces: 1, InputBytes: 400, ShuffleBytes: 400, OutputBytes: 100, Profile: workload.DefaultProfile(),
		Measured: &workload.Measured{MapInputs: []int64{100, 300}, MapS: []float64{12, 20}, ReduceS: []float64{30}, ReduceFnS: []float64{9}}}
	maps, reduces := MeasuredProfile(&j, IdleIO{DiskBps: 100, NICBps: 50, StartupS: 2})
	if !maps || !reduces || math.Abs(j.Profile.MapSecPerByte-28.0/400) > 1e-12 || math.Abs(j.Profile.ReduceSecPerByte-7.0/400) > 1e-12 {
		t.Errorf("profile %+v (%v, %v); want maps 28/400 s a byte, reduces 7/400", j.Profile, maps, reduces)
	}
	k := workload.Job{NumMaps: 1, NumReduces: 1, Profile: workload.DefaultProfile(),
		Measured: &workload.Measured{MapInputs: []int64{0}, MapS: []float64{5}, ReduceS: []float64{-1}, ReduceFnS: []float64{-1}}}
	if maps, reduces := MeasuredProfile(&k, IdleIO{}); maps || reduces || k.Profile != workload.DefaultProfile() {
		t.Errorf("no bytes, no reduce times: %v %v %+v; want the profile kept", maps, reduces, k.Profile)
	}
}
