package experiment

import (
	"math"
	"testing"

	"github.com/mrsched/mrsched/workload"
)

func TestZipfJobsStayInThePapersRanges(t *testing.T) {
	// Section 5.3: "between 1 and 400 maps and a random number of reduces
	// between 1 and numMaps/5", 30 jobs.
	seen := map[int]int{}
	for seed := uint64(1); seed <= 50; seed++ {
		jobs, err := ZipfJobs(DefaultZipf(seed))
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) != 30 {
			t.Fatalf("seed %d: %d jobs, want 30", seed, len(jobs))
		}
		if err := workload.Validate(jobs); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if jobs[0].Submit != 0 {
			t.Errorf("seed %d: first job submits at %v, want 0", seed, jobs[0].Submit)
		}
		for _, j := range jobs {
			if j.NumMaps < 1 || j.NumMaps > 400 {
				t.Errorf("seed %d job %d: %d maps, want 1..400", seed, j.ID, j.NumMaps)
			}
			if hi := max(1, j.NumMaps/5); j.NumReduces < 1 || j.NumReduces > hi {
				t.Errorf("seed %d job %d: %d reduces for %d maps, want 1..%d", seed, j.ID, j.NumReduces, j.NumMaps, hi)
			}
			seen[j.NumMaps]++
		}
	}
	// Zipf with exponent 1: P(1) = 1/H(400) = 15.1% and P(1)/P(2) = 2.
	// 1,500 draws put P(1) within about 3 points of it.
	if p1 := float64(seen[1]) / 1500; math.Abs(p1-0.151) > 0.03 {
		t.Errorf("P(maps = 1) = %.3f, want about 0.151 (1/H(400))", p1)
	}
	if seen[1] <= seen[2] || seen[2] <= seen[10] {
		t.Errorf("sizes 1, 2, 10 drawn %d, %d, %d times: a Zipf law makes small sizes commonest", seen[1], seen[2], seen[10])
	}
}

func TestBMTableIsThePapersTable2(t *testing.T) {
	wantMaps := []int{16, 40, 80, 160, 320, 600, 1200, 2400, 6400}
	wantJobs := []int{29, 5, 4, 4, 3, 2, 1, 1, 1}
	if len(BMTable) != 9 {
		t.Fatalf("%d bins, want 9", len(BMTable))
	}
	total, pct := 0, 0.0
	for i, b := range BMTable {
		if b.Bin != i || b.Maps != wantMaps[i] || b.Jobs != wantJobs[i] {
			t.Errorf("bin %d: %+v, want %d jobs of %d maps", i, b, wantJobs[i], wantMaps[i])
		}
		total += b.Jobs
		pct += b.FacebookPct
	}
	if total != 50 {
		t.Errorf("BM has %d jobs, want 50", total)
	}
	if math.Abs(pct-100) > 0.01 {
		t.Errorf("Facebook shares add up to %.2f%%, want 100%%", pct)
	}
}

func TestBMJobsFollowTheTable(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		c := DefaultBM(seed)
		jobs, bins := BMJobs(c)
		if len(jobs) != 50 || len(bins) != 50 {
			t.Fatalf("seed %d: %d jobs, %d bins, want 50", seed, len(jobs), len(bins))
		}
		if err := workload.Validate(jobs); err != nil {
			t.Fatal(err)
		}
		count := make([]int, len(BMTable))
		for i, j := range jobs {
			b := BMTable[bins[i]]
			count[b.Bin]++
			if j.NumMaps != b.Maps {
				t.Errorf("job %d in bin %d has %d maps, want %d", i, b.Bin, j.NumMaps, b.Maps)
			}
			// 5% to 25% of maps, rounded, at least 1: 16 maps give 1..4.
			lo, hi := max(1, int(math.Round(0.05*float64(b.Maps)))), max(1, int(math.Round(0.25*float64(b.Maps))))
			if j.NumReduces < lo || j.NumReduces > hi {
				t.Errorf("job %d: %d reduces for %d maps, want %d..%d", i, j.NumReduces, j.NumMaps, lo, hi)
			}
			if mapS := j.Profile.MapSecPerByte * float64(c.BlockBytes); mapS < 9 || mapS > 60 {
				t.Errorf("job %d: maps take %.1f s, want 9..60", i, mapS)
			}
		}
		for _, b := range BMTable {
			if count[b.Bin] != b.Jobs {
				t.Errorf("seed %d: %d jobs in bin %d, want %d", seed, count[b.Bin], b.Bin, b.Jobs)
			}
		}
	}
}

func TestScanJobShape(t *testing.T) {
	const block = 128 << 20
	for _, m := range []int{3, 10, 100} {
		j := scanJob(0, "f", 0, 0, m, block, ScanMapS)
		if err := j.Validate(); err != nil {
			t.Fatal(err)
		}
		if j.NumMaps != m || j.InputBytes != int64(m)*block || j.NumReduces != 1 {
			t.Errorf("%d-map scan: %d maps, %d bytes, %d reduces", m, j.NumMaps, j.InputBytes, j.NumReduces)
		}
		// 0.5% of the input is kept (section 6.2.1) and each map takes 9 s.
		if got, want := float64(j.ShuffleBytes), 0.005*float64(j.InputBytes); math.Abs(got-want) > 1 {
			t.Errorf("%d-map scan keeps %v bytes, want %v", m, got, want)
		}
		if got := j.Profile.MapSecPerByte * block; math.Abs(got-9) > 1e-9 {
			t.Errorf("%d-map scan maps take %v s, want 9", m, got)
		}
	}
}

func TestSmallJobsWorkloads(t *testing.T) {
	// 600 map slots busy for 600 s at 9 s a map: 40,000 maps.
	got := SmallJobsWorkloads(600)
	want := []SmallJobs{{3, 13333}, {10, 4000}, {100, 400}}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("workload %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
