package sched

import (
	"fmt"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mrsched/mrsched/cluster"
)

// tdYAML is a strict Decode over a YAML document, as the scenario loader's.
func tdYAML(doc string) Decode {
	return func(into any) error {
		dec := yaml.NewDecoder(strings.NewReader(doc))
		dec.KnownFields(true)
		if err := dec.Decode(into); err != nil && doc != "" {
			return err
		}
		return nil
	}
}

func TestTDParams(t *testing.T) {
	cases := []struct {
		name    string
		doc     string
		want    tdConfig // compared when wantErr is ""
		wantErr string
	}{
		{name: "defaults are the paper's", doc: "",
			want: tdConfig{l: 0.7, h: 1.3, conn: 4, hot: 4, demandShare: 0.35}},
		{name: "every field", doc: "l: 0.6\nh: 1.2\nconnection_limit: 3\nhot_threshold: 5\ndefault_amt_s: 12\namt_by_kind_s: {grep: 5}\ndemand_share: 0.5\nallow_off_rack: true\n",
			want: tdConfig{l: 0.6, h: 1.2, conn: 3, hot: 5, defaultAMT: 12, demandShare: 0.5, offRack: true}},
		{name: "hot threshold follows the connection limit", doc: "connection_limit: 6\n",
			want: tdConfig{l: 0.7, h: 1.3, conn: 6, hot: 6, demandShare: 0.35}},
		{name: "unknown field", doc: "L: 0.7\n", wantErr: "field L not found"},
		{name: "l must be below 1", doc: "l: 1\n", wantErr: "l: "},
		{name: "l must be positive", doc: "l: 0\n", wantErr: "l: "},
		{name: "h must exceed 1", doc: "h: 1\n", wantErr: "h: "},
		{name: "negative connection limit", doc: "connection_limit: -1\n", wantErr: "connection_limit"},
		{name: "negative hot threshold", doc: "hot_threshold: -2\n", wantErr: "hot_threshold"},
		{name: "zero default amt", doc: "default_amt_s: 0\n", wantErr: "default_amt_s"},
		{name: "bad amt of a kind", doc: "amt_by_kind_s: {sort: 3, grep: -1}\n", wantErr: "amt_by_kind_s.grep"},
		{name: "demand share above 1", doc: "demand_share: 1.5\n", wantErr: "demand_share"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pol, err := NewTD(tdYAML(c.doc))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("NewTD(%q) error = %v, want one naming %q", c.doc, err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewTD(%q): %v", c.doc, err)
			}
			got := pol.(*TD).cfg
			got.amtByKind = nil
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("config %+v, want %+v", got, c.want)
			}
		})
	}
}

// TestTDDefaultDemand: a job without a demand asks for min(maps, ceil(0.35
// T)); one with a demand keeps it.
func TestTDDefaultDemand(t *testing.T) {
	e := newTDEnv(t, 100, TDParams{})
	cases := []struct {
		demand, maps, want int
		why                string
	}{
		{0, 20, 20, "a 20-map job asks for one wave"},
		{0, 300, 35, "ceil(0.35 x 100) = 35"},
		{50, 300, 50, "the user's setting"},
	}
	for _, c := range cases {
		j := e.job("x", c.demand, tdNodes(c.maps, 0)...)
		if got := e.p.jobs[j.Index].demand; got != c.want {
			t.Errorf("demand %d, %d maps: got j.demand %d, want %d: %s", c.demand, c.maps, got, c.want, c.why)
		}
	}
}

// tdFixture is a 600-node cluster (30 racks of 20, 4 map slots a node)
// with 200 jobs of 40 maps placed at random, every slot filled by TD.
func tdFixture(tb testing.TB) *tdEnv {
	topo, err := cluster.New(cluster.Config{Racks: 30, NodesPerRack: 20})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := NewTDPolicy(TDParams{})
	if err != nil {
		tb.Fatal(err)
	}
	e := &tdEnv{topo: topo, p: p, T: 2400}
	for i := range 200 {
		f := cluster.NewPlacer(topo, uint64(i)+1).PlaceFile(40, cluster.NoWriter)
		j := &Job{Index: i, NumMaps: 40, NumReduces: 1, Maps: NewMapIndex(topo, &f), Input: &f}
		e.jobs = append(e.jobs, j)
		p.JobAdded(e, j)
	}
	// Fill every slot as the engine would, launching what TD decides:
	// teenaged jobs grow adult, the offers after that run Algorithm 2.
	for n := range 2400 {
		node := cluster.NodeID(n % 600)
		if d, ok := p.Assign(e, Offer{Node: node, Slot: MapSlot}); ok {
			d.Job.Maps.Take(d.Map)
			d.Job.RunningMaps++
			p.TaskLaunched(e, d.Job, MapTask, node)
		}
	}
	return e
}

func TestTDAssignDoesNotAllocate(t *testing.T) {
	e := tdFixture(t)
	n := cluster.NodeID(0)
	allocs := testing.AllocsPerRun(500, func() {
		e.now += 0.01
		e.p.Assign(e, Offer{Node: n, Slot: MapSlot})
		n = (n + 7) % 600
	})
	if allocs != 0 {
		t.Errorf("Assign allocates %.1f times a call, want 0 once admissions have settled: it runs on every offer", allocs)
	}
}

// BenchmarkTDAssign offers nodes round-robin to TD over the fixture's
// co-scheduled jobs, without launching.
func BenchmarkTDAssign(b *testing.B) {
	e := tdFixture(b)
	b.ReportAllocs()
	n := cluster.NodeID(0)
	for b.Loop() {
		e.now += 0.001
		e.p.Assign(e, Offer{Node: n, Slot: MapSlot})
		n = (n + 7) % 600
	}
}
