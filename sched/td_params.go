package sched

import (
	"fmt"
	"math"
	"slices"
)

// TD's defaults. L and H are the paper's (Wang et al., "A Throughput Driven
// Task Scheduler for Improving MapReduce Performance in Job-intensive
// Environments", IEEE BigData Congress 2013, section V: "The default value
// of the lower bound L=0.7, upper bound H=1.3", confirmed best in V-B). The
// paper gives no value for the others; each is explained where TDParams
// declares it.
const (
	DefaultTDL               = 0.7
	DefaultTDH               = 1.3
	DefaultTDConnectionLimit = 4
	DefaultTDDemandShare     = 0.35
	// DefaultTDFallbackAMTS is amt(j) of a job with no measurement, no
	// configured default and no CPU profile. amt only orders jobs and
	// weighs nodes' remaining work, so any positive constant serves.
	DefaultTDFallbackAMTS = 1.0
)

// TDParams are the `td` policy's parameters. Pointer fields tell "unset"
// (nil: the default) from an explicit value.
type TDParams struct {
	// L is the lower bound (section IV-A.1): TD keeps every adult job at
	// j.occupied >= L x j.demand by giving a slot freed by such a job back
	// to it (Algorithm 1, line 2). 0 < L < 1; default 0.7.
	L *float64 `yaml:"l"`
	// H is the upper bound (section IV-A.1): local and non-local choices
	// (Algorithm 2) skip a job with j.occupied >= H x j.demand. H > 1;
	// default 1.3. Formula (1) wants H < (T - L x D)/d_max + L; it depends
	// on the co-scheduled jobs, so it is checked at run time whenever a job
	// joins them, and a violation is counted in TDStats (not an error: the
	// paper's own V-B sweep runs H up to 1.5 past its bound of 1.56).
	H *float64 `yaml:"h"`
	// ConnectionLimit is θ of section IV-A.2 (the symbol is lost in the
	// text): the hot queue refuses a node as a non-local source while θ
	// reads from it are recorded, and a tuple expires after σθ/β, one
	// split's transfer at the per-connection share β/θ of the node's
	// bandwidth. The paper gives no value; the default 4 is how many
	// connections a 1 Gbit/s NIC (about 119 MiB/s) can carry while still
	// giving each the 25.6 MB/s its IO-bound example needs (section
	// III-B, factor 2: a 128 MB split in 5 s). 0 means the default.
	ConnectionLimit int `yaml:"connection_limit" zero:"4"`
	// HotThreshold is the number of concurrent non-local reads from one
	// node above which the node counts as a hotspot in TDStats (section
	// IV-A.2's "actual hotspot": more than θ connections). 0 means
	// ConnectionLimit, the paper's single θ.
	HotThreshold int `yaml:"hot_threshold" zero:"connection_limit"`
	// DefaultAMTS is amt(j), seconds, of a job before any of its maps has
	// finished, for kinds AMTByKindS does not list (section IV-A.1: "a
	// default value according to the job type"). Unset: the job's own
	// profile, the CPU time of its mean map (map_sec_per_byte x mean input
	// per map), which is what the job's type costs in this model.
	DefaultAMTS *float64 `yaml:"default_amt_s"`
	// AMTByKindS gives the default amt(j), seconds, per job kind
	// (workload.Job.Kind, e.g. "grep": 6, "wordcount": 20).
	AMTByKindS map[string]float64 `yaml:"amt_by_kind_s"`
	// DemandShare sets j.demand for jobs that leave workload.Job.Demand
	// at 0: min(maps, ceil(DemandShare x T)), at least 1, where T is the
	// cluster's map slots (containers in the container model). The paper
	// has demand as a user setting and no default; 0.35 is its section
	// V-B bound "∀j, j.demand ≤ 35" on 100 map slots, so that a small job
	// asks for one wave and a large one for a third of the cluster.
	DemandShare *float64 `yaml:"demand_share"`
	// AllowOffRack lets a non-local map read from another rack. Default
	// false, as the paper ran TD (section V-A: "the nonlocal assignment is
	// not allowed to be off-rack considering the network overhead"):
	// GetNonHotspotNode then only considers nodes in the offered node's
	// rack. With true it considers every node, as section IV-A.2 states it.
	AllowOffRack bool `yaml:"allow_off_rack"`
}

// Validate names the first bad parameter.
func (p TDParams) Validate() error {
	if v := p.L; v != nil && !(*v > 0 && *v < 1) {
		return fmt.Errorf("l: the lower bound is a fraction of demand, want 0 < l < 1 (section IV-A.1), got %v", *v)
	}
	if v := p.H; v != nil && !(*v > 1 && !math.IsInf(*v, 0)) {
		return fmt.Errorf("h: the upper bound is a finite multiple of demand, want h > 1 (section IV-A.1), got %v", *v)
	}
	if p.ConnectionLimit < 0 {
		return fmt.Errorf("connection_limit: want a number of connections >= 1 (leave it out for the default %d), got %d", DefaultTDConnectionLimit, p.ConnectionLimit)
	}
	if p.HotThreshold < 0 {
		return fmt.Errorf("hot_threshold: want a number of reads >= 1 (leave it out for connection_limit), got %d", p.HotThreshold)
	}
	if v := p.DefaultAMTS; v != nil && !tdPositive(*v) {
		return fmt.Errorf("default_amt_s: want a finite number of seconds > 0, got %v", *v)
	}
	kinds := make([]string, 0, len(p.AMTByKindS))
	for k := range p.AMTByKindS {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds) // report the same bad kind every time
	for _, k := range kinds {
		if v := p.AMTByKindS[k]; !tdPositive(v) {
			return fmt.Errorf("amt_by_kind_s.%s: want a finite number of seconds > 0, got %v", k, v)
		}
	}
	if v := p.DemandShare; v != nil && !(*v > 0 && *v <= 1) {
		return fmt.Errorf("demand_share: a fraction of the cluster's map slots, want 0 < demand_share <= 1, got %v", *v)
	}
	return nil
}

func tdPositive(v float64) bool { return v > 0 && !math.IsInf(v, 0) }

// TDMaxH is the bound formula (1) of section IV-A.1 puts on H:
// H < (T - L*D)/dmax + L, for T map slots, co-scheduled jobs whose demands
// sum to D and the largest of which is dmax. It follows from asking that
// when any job j holds j.demand x H slots, the others can still hold
// (D - j.demand) x L. The paper's example (Fig. 3a): T = 1000, L = 0.7,
// D = 950, dmax = 350 gives 1.66.
func TDMaxH(T, L, D, dmax float64) float64 { return (T-L*D)/dmax + L }

// tdConfig is TDParams with defaults applied.
type tdConfig struct {
	l, h        float64
	conn        int32
	hot         int32
	defaultAMT  float64 // 0: from the job's profile
	amtByKind   map[string]float64
	demandShare float64
	offRack     bool
}

func (p TDParams) config() tdConfig {
	c := tdConfig{
		l: orDefault(p.L, DefaultTDL), h: orDefault(p.H, DefaultTDH),
		conn: int32(p.ConnectionLimit), hot: int32(p.HotThreshold),
		defaultAMT: orDefault(p.DefaultAMTS, 0), amtByKind: p.AMTByKindS,
		demandShare: orDefault(p.DemandShare, DefaultTDDemandShare), offRack: p.AllowOffRack,
	}
	if c.conn == 0 {
		c.conn = DefaultTDConnectionLimit
	}
	if c.hot == 0 {
		c.hot = c.conn
	}
	return c
}
