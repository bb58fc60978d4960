package content

import (
	"bytes"
	"io"
	"testing"

	"github.com/mrsched/mrsched/workload"
)

func TestSplitAddsUpAndDiffersByAtMostOne(t *testing.T) {
	for _, tc := range []struct {
		total int64
		n     int
	}{{0, 1}, {1, 3}, {10, 3}, {12, 4}, {1000003, 7}, {5, 9}} {
		var sum, lo, hi int64 = 0, tc.total, 0
		for r := range tc.n {
			p := Split(tc.total, tc.n, r)
			sum += p
			lo, hi = min(lo, p), max(hi, p)
		}
		if sum != tc.total || hi-lo > 1 {
			t.Errorf("Split(%d, %d): parts sum to %d, range %d..%d; want the total, parts within a byte of each other", tc.total, tc.n, sum, lo, hi)
		}
	}
}

func read(k Key, n int64) []byte {
	b, _ := io.ReadAll(Stream(k, n))
	return b
}

func digest(b []byte) Digest {
	h := NewHasher()
	h.Write(b)
	return h.Sum()
}

func TestStreamsAreKeyedAndRepeatable(t *testing.T) {
	a, b := BlockKey(1, "job0", 0), BlockKey(1, "job0", 1)
	if !bytes.Equal(read(a, 1000), read(a, 1000)) {
		t.Error("one key gave two different streams; a re-executed task must write the same bytes")
	}
	if bytes.Equal(read(a, 1000), read(b, 1000)) {
		t.Error("blocks 0 and 1 of a job are the same bytes; every block must be its own")
	}
	if BlockKey(1, "job0", 0) == BlockKey(2, "job0", 0) || BlockKey(1, "job0", 0) == BlockKey(1, "job1", 0) {
		t.Error("a block's key ignores the seed or the job")
	}
	if got := len(read(a, 12345)); got != 12345 {
		t.Errorf("stream of 12345 bytes gave %d", got)
	}
	if d, e := Of(a, 5000), Of(a, 5000); d != e {
		t.Error("Of gave two digests of one stream")
	}
	if Of(a, 5000) == Of(a, 5001) || Of(a, 5000) != digest(read(a, 5000)) {
		t.Error("Of must digest exactly the stream's bytes")
	}
}

// TestExpectedIsTheChainOfDigests recomputes a plan's checksum the way the
// tasks do, step by step, and checks that any change to what a task reads
// or writes changes it.
func TestExpectedIsTheChainOfDigests(t *testing.T) {
	p := Plan{Seed: 3, Job: "job7", Input: []int64{100, 50}, MapOutput: []int64{30, 31}, Output: []int64{40, 5, 9}}
	in := []Digest{Of(BlockKey(3, "job7", 0), 100), Of(BlockKey(3, "job7", 1), 50)}
	var outs []Digest
	for r := range p.Output {
		col := []Digest{Of(PartitionKey(in[0], r), Split(30, 3, r)), Of(PartitionKey(in[1], r), Split(31, 3, r))}
		outs = append(outs, Of(OutputKey(col), p.Output[r]))
	}
	if got, want := p.Expected(), JobChecksum(outs); got != want {
		t.Fatalf("Expected() = %s, the tasks' chain gives %s", got, want)
	}
	for name, q := range map[string]Plan{
		"another seed":         {Seed: 4, Job: p.Job, Input: p.Input, MapOutput: p.MapOutput, Output: p.Output},
		"a longer block":       {Seed: 3, Job: p.Job, Input: []int64{101, 50}, MapOutput: p.MapOutput, Output: p.Output},
		"more map output":      {Seed: 3, Job: p.Job, Input: p.Input, MapOutput: []int64{30, 32}, Output: p.Output},
		"a shorter reduce out": {Seed: 3, Job: p.Job, Input: p.Input, MapOutput: p.MapOutput, Output: []int64{40, 5, 8}},
	} {
		if q.Expected() == p.Expected() {
			t.Errorf("%s leaves the checksum unchanged; it must change it", name)
		}
	}
}

func TestPlanJobScalesEveryTaskBytes(t *testing.T) {
	j := workload.Job{Name: "j", InputBytes: 250 << 20, ShuffleBytes: 90 << 20, OutputBytes: 30 << 20, NumMaps: 4, NumReduces: 3}
	p, err := PlanJob(&j, 64<<20, 0.01, 1)
	if err != nil {
		t.Fatal(err)
	}
	in, sh, out := p.Bytes()
	for _, c := range []struct {
		name      string
		got, want float64
		tasks     int
	}{
		{"input", float64(in), 0.01 * float64(j.InputBytes), 4},
		{"shuffle", float64(sh), 0.01 * float64(j.ShuffleBytes), 4},
		{"output", float64(out), 0.01 * float64(j.OutputBytes), 3},
	} {
		if d := c.got - c.want; d > float64(c.tasks) || d < -float64(c.tasks) {
			t.Errorf("%s: %v bytes, want %v within a byte a task", c.name, c.got, c.want)
		}
	}
	// 64 MiB x 0.01 = 671088.64 bytes; the last block, 58 MiB x 0.01 = 608174.08.
	if p.Input[0] != 671089 || p.Input[1] != 671089 || p.Input[3] != 608174 {
		t.Errorf("blocks %v: want three scaled 64 MiB blocks and the scaled remainder", p.Input)
	}
	if _, err := PlanJob(&j, 64<<20, 0, 1); err == nil {
		t.Error("a zero byte scale must be refused")
	}
}
