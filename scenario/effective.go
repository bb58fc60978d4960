package scenario

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"maps"
	"math"
	"slices"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/faults"
	"github.com/mrsched/mrsched/sim"
	"github.com/mrsched/mrsched/traces"
	"github.com/mrsched/mrsched/workload"
)

// Effective is the configuration a run used, every default filled in:
// summary.json records it as "config", so that a result always says what
// produced it. Its fields are deterministic (map keys are sorted when
// written).
type Effective struct {
	Seed     uint64            `json:"seed"`
	Cluster  cluster.Config    `json:"cluster"`
	Workload EffectiveWorkload `json:"workload"`
	Policy   EffectivePolicy   `json:"policy"`
	Engine   sim.Params        `json:"engine"`
	Metrics  MetricsSpec       `json:"metrics"`
	// Faults are the scenario's faults as written, when it has any.
	Faults []faults.Spec `json:"faults,omitempty"`
	// Topology is the cluster's hosts when they differ from racks of
	// identical nodes (cluster.topology, or a trace's hosts).
	Topology *EffectiveTopology `json:"topology,omitempty"`
}

// EffectiveWorkload is the workload's settings as the run used them, and
// what they made: the jobs after scaling.
type EffectiveWorkload struct {
	Trace             string  `json:"trace,omitempty"`
	Generator         string  `json:"generator,omitempty"`
	SourceNodes       int     `json:"source_nodes,omitempty"`
	Scale             float64 `json:"scale,omitempty"`
	BytesPerReduce    int64   `json:"bytes_per_reduce"`
	Users             int     `json:"users"`
	MaxJobs           int     `json:"max_jobs,omitempty"`
	StartS            float64 `json:"start_s,omitempty"`
	EndS              float64 `json:"end_s,omitempty"`
	MapMBps           float64 `json:"map_mbps,omitempty"`
	ReduceMBps        float64 `json:"reduce_mbps,omitempty"`
	MeanInterarrivalS float64 `json:"mean_interarrival_s,omitempty"`
	DurationS         float64 `json:"duration_s,omitempty"`
	InputScale        float64 `json:"input_scale,omitempty"`
	// TaskCostScale is recorded when it is not 1.
	TaskCostScale   float64 `json:"task_cost_scale,omitempty"`
	TaskFailureRate float64 `json:"task_failure_rate"`
	// Demand is workload.demand as given, when set.
	Demand *EffectiveDemand `json:"demand,omitempty"`
	// Placement is workload.placement when it is not the default,
	// outside (absent: outside, as before the setting existed).
	Placement string `json:"placement,omitempty"`

	// The jobs the settings made, after scaling.
	Jobs         int     `json:"jobs"`
	Maps         int64   `json:"maps"`
	Reduces      int64   `json:"reduces"`
	InputBytes   int64   `json:"input_bytes"`
	ShuffleBytes int64   `json:"shuffle_bytes"`
	OutputBytes  int64   `json:"output_bytes"`
	FirstSubmitS float64 `json:"first_submit_s"`
	LastSubmitS  float64 `json:"last_submit_s"`
	// DataSets is how many distinct data sets the jobs read, when the
	// trace names them (workload.Job.DataSet).
	DataSets int `json:"data_sets,omitempty"`
	// Format is a Hadoop or YARN trace's format (rumen, jhist, sls);
	// BytesModelled says its bytes come from the byte model, not the
	// trace (SLS records none).
	Format        string `json:"format,omitempty"`
	BytesModelled bool   `json:"bytes_modelled,omitempty"`
	// TaskTimes is "trace" when tasks' CPU costs come from the times the
	// trace measured (map_mbps and reduce_mbps then stand for tasks it did
	// not measure).
	TaskTimes string `json:"task_times,omitempty"`
}

// EffectiveDemand is workload.demand's values.
type EffectiveDemand struct {
	Default int            `json:"default,omitempty"`
	ByKind  map[string]int `json:"by_kind,omitempty"`
	ByJob   map[string]int `json:"by_job,omitempty"`
}

// EffectivePolicy is the policy and its parameters with defaults filled.
type EffectivePolicy struct {
	Name   string         `json:"name"`
	Params map[string]any `json:"params"`
	// NotApplied names what of the scenario the policy cannot apply, a
	// line each: the cluster's pools under a policy that has none, or
	// minimum shares under DRF.
	NotApplied []string `json:"not_applied,omitempty"`
	// Allocations is the allocation file the policy took, when set.
	Allocations *EffectiveAllocations `json:"allocations,omitempty"`
	// Site is the site file whose locality settings the policy took.
	Site string `json:"site,omitempty"`
}

// effective describes a run of c on t with jobs, under a policy whose
// effective parameters are params.
func (c *Config) effective(t *cluster.Topology, jobs []workload.Job, params map[string]any, notApplied []string) Effective {
	cfg := t.Config()
	w := c.Workload
	ew := EffectiveWorkload{
		Trace: w.Trace, Generator: w.Generator, Users: orDefaultInt(w.Users, DefaultUsers),
		BytesPerReduce:  int64(orDefaultInt(int(w.BytesPerReduce), workload.DefaultBytesPerReduce)),
		TaskFailureRate: w.TaskFailureRate,
	}
	if w.TaskCostScale != 1 {
		ew.TaskCostScale = w.TaskCostScale
	}
	if w.Generator != "" {
		ew.MeanInterarrivalS = orDefault(w.MeanInterarrivalS, swMeanInterarrivalS)
		ew.InputScale = orDefault(w.InputScale, 1)
		ew.DurationS = orDefault(w.DurationS, swDurationS)
	} else {
		ew.SourceNodes = w.SourceNodes
		if _, n, ok := traces.Embedded(w.Trace); ok && ew.SourceNodes == 0 {
			ew.SourceNodes = n
		}
		ew.Scale = w.Scale
		if ew.Scale == 0 && ew.SourceNodes > 0 {
			ew.Scale = float64(t.NumNodes()) / float64(ew.SourceNodes)
		}
		ew.MaxJobs, ew.StartS, ew.EndS = w.MaxJobs, w.StartS, w.EndS
		prof := workload.DefaultProfile()
		ew.MapMBps = orDefault(w.MapMBps, 1/(prof.MapSecPerByte*(1<<20)))
		ew.ReduceMBps = orDefault(w.ReduceMBps, 1/(prof.ReduceSecPerByte*(1<<20)))
	}
	if d := w.Demand; !d.IsZero() {
		ed := &EffectiveDemand{Default: d.Default.N, ByKind: map[string]int{}, ByJob: map[string]int{}}
		for k, v := range d.ByKind {
			ed.ByKind[k] = v.N
		}
		for k, v := range d.ByJob {
			ed.ByJob[k] = v.N
		}
		ew.Demand = ed
	}
	if p, err := workload.ParsePlacement(w.Placement); err == nil && p != workload.PlaceOutside {
		ew.Placement = p.String()
	}
	ew.Jobs = len(jobs)
	ew.DataSets = workload.Summarize(jobs).DataSets
	for i := range jobs {
		j := &jobs[i]
		ew.Maps += int64(j.NumMaps)
		ew.Reduces += int64(j.NumReduces)
		ew.InputBytes += j.InputBytes
		ew.ShuffleBytes += j.ShuffleBytes
		ew.OutputBytes += j.OutputBytes
	}
	if len(jobs) > 0 {
		ew.FirstSubmitS, ew.LastSubmitS = jobs[0].Submit, jobs[len(jobs)-1].Submit
	}
	if params == nil {
		params = map[string]any{}
	}
	eng := c.engineFor(jobs).Resolved(cfg)
	if len(c.Faults) == 0 {
		eng.NodeExpiryS = 0 // unused without faults, and not recorded
	}
	e := Effective{
		Seed: c.seed(), Cluster: cfg, Workload: ew,
		Policy: EffectivePolicy{Name: c.Policy.Name, Params: params, NotApplied: notApplied, Site: c.Policy.Site},
		Engine: eng, Metrics: c.Metrics, Faults: c.Faults,
	}
	on := c.Metrics.Breakdown()
	e.Metrics.TimeBreakdown = &on
	c.effectiveInputs(&e, t)
	return e
}

func orDefaultInt(v, d int) int {
	if v == 0 {
		return d
	}
	return v
}

// Fingerprint identifies a workload on a cluster: a SHA-256, in hex, of
// the cluster's settings and of every job's name, kind, submit time, task
// counts, byte sizes, processing profile and weight, in job order, and,
// when any job reads a data set or was written inside the cluster, of
// every job's data set and placement. Runs with one fingerprint ran the
// same jobs on the same cluster, so that comparing them job by job
// (mrsched diff) pairs like with like. It leaves out what a seed or a
// policy setting varies without changing the jobs: the users jobs are
// spread over, the td demands, the engine, the policy and the failure
// rate; the replica choice, which changes how jobs read their data, not
// what or where it is; and the cost model (cluster.profile and
// cluster.disk, as the engine's cost settings), so that runs of one
// workload under different profiles compare job by job.
func Fingerprint(cfg cluster.Config, jobs []workload.Job) string {
	h := sha256.New()
	var buf []byte
	str := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	i64 := func(v int64) { buf = binary.AppendVarint(buf, v) }
	f64 := func(v float64) { buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v)) }
	// Workloads without data sets or inside writers keep the encoding
	// they always had, and so their fingerprints; the others add two
	// fields a job under a header of their own.
	located := false
	for i := range jobs {
		located = located || jobs[i].DataSet != "" || jobs[i].Placement != workload.PlaceOutside
	}
	if located {
		str("mrsched workload v2: data sets and placement")
	} else {
		str("mrsched workload v1")
	}
	for _, v := range []int{cfg.Racks, cfg.NodesPerRack, cfg.MapSlots, cfg.ReduceSlots, cfg.Containers, cfg.BlockMB, cfg.Replication} {
		i64(int64(v))
	}
	for _, v := range []float64{cfg.CPUCores, cfg.MemoryGB, cfg.DiskMBps, cfg.NICMbps, cfg.RackUplinkMbps} {
		f64(v)
	}
	// A cluster of hosts (a topology file, node groups, rack uplinks):
	// what names its hosts and how they differ. Absent for racks of
	// identical nodes, whose fingerprints stay as they were.
	if cfg.Topology != "" || cfg.NodeGroups != nil || cfg.RackUplinks != nil {
		str("hosts: " + cfg.Topology)
		for _, g := range cfg.Groups() {
			str(g.Hosts)
			for _, v := range []int{g.MapSlots, g.ReduceSlots, g.Containers} {
				i64(int64(v))
			}
			for _, v := range []float64{g.CPUCores, g.MemoryGB, g.DiskMBps, g.NICMbps} {
				f64(v)
			}
		}
		ups := cfg.Uplinks()
		for _, r := range slices.Sorted(maps.Keys(ups)) {
			str(r)
			f64(ups[r])
		}
	}
	for i := range jobs {
		j := &jobs[i]
		str(j.Name)
		str(j.Kind)
		f64(j.Submit)
		i64(int64(j.NumMaps))
		i64(int64(j.NumReduces))
		i64(j.InputBytes)
		i64(j.ShuffleBytes)
		i64(j.OutputBytes)
		p := j.Profile
		for _, v := range []float64{p.MapSecPerByte, p.ReduceSecPerByte, p.MapCPU, p.MapMemGB, p.ReduceCPU, p.ReduceMemGB, j.Weight} {
			f64(v)
		}
		if located {
			str(j.DataSet)
			i64(int64(j.Placement))
		}
		if m := j.Measured; m != nil {
			// A traced job's maps read what the trace says, each its own.
			for _, b := range m.MapInputs {
				i64(b)
			}
		}
		if len(buf) > 1<<16 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))[:16]
}
