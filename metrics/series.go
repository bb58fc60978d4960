package metrics

import (
	"encoding/csv"
	"io"
	"strconv"
)

// The per-rack and per-pool series are kept apart from TimeseriesRow so
// that timeseries.csv keeps its columns: they go to uplinks.csv and
// pools.csv, one row per rack or pool and sample.

// UplinkSample is every rack uplink's mean utilisation over one timeseries
// period: the mean of the network monitor's samples taken in the period
// (each the bytes carried over the monitor's period / capacity). Util[r]
// is rack r's (up, down).
type UplinkSample struct {
	T    float64
	Util [][2]float64
}

// PoolSample is one pool's tasks at a timeseries sample, a row of pools.csv.
type PoolSample struct {
	T    float64
	Pool string
	// Running is the pool's running tasks; Demand adds the tasks it could
	// start now (pending maps, pending reduces once enabled).
	Running, Demand int
	// Share is Running over the cluster's task slots. FairShare is the
	// pool's max-min fair share of the slots, with equal weights and no
	// minimum shares, over the pools' demands (each slot kind divided
	// apart: map slots by map demand, reduce slots by reduce demand), also
	// over the cluster's task slots. It is a policy-independent yardstick:
	// what a plain fair scheduler would aim at, not what the run's policy
	// was configured to aim at.
	Share, FairShare float64
}

// uplinkAcc sums the monitor's samples since the last timeseries row.
type uplinkAcc struct {
	sum [][2]float64
	n   int
}

// UplinkMonitorSample adds one network monitor sample of every rack
// uplink's utilisation (rack r's up and down) to the current period.
func (c *Collector) UplinkMonitorSample(util [][2]float64) {
	a := &c.uplinkAcc
	if len(a.sum) != len(util) {
		a.sum = make([][2]float64, len(util))
	}
	for r, u := range util {
		a.sum[r][0] += u[0]
		a.sum[r][1] += u[1]
	}
	a.n++
}

// EndUplinkPeriod closes the current period at t: it appends the mean of
// the monitor samples taken since the last call (zeros when none was) and
// starts a new period.
func (c *Collector) EndUplinkPeriod(t float64, racks int) {
	a := &c.uplinkAcc
	s := UplinkSample{T: t, Util: make([][2]float64, racks)}
	if a.n > 0 {
		for r := range min(racks, len(a.sum)) {
			s.Util[r] = [2]float64{a.sum[r][0] / float64(a.n), a.sum[r][1] / float64(a.n)}
		}
	}
	clear(a.sum)
	a.n = 0
	c.uplinks = append(c.uplinks, s)
}

// AddPoolSamples appends one sample's pool rows, in the order given.
func (c *Collector) AddPoolSamples(rows []PoolSample) { c.pools = append(c.pools, rows...) }

// Uplinks returns the per-rack uplink series. The caller must not modify it.
func (c *Collector) Uplinks() []UplinkSample { return c.uplinks }

// Pools returns the per-pool series. The caller must not modify it.
func (c *Collector) Pools() []PoolSample { return c.pools }

// WriteUplinksCSV writes uplinks.csv: one row per sample and rack.
func (c *Collector) WriteUplinksCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"t_s", "rack", "up_util", "down_util"})
	for _, s := range c.uplinks {
		for r, u := range s.Util {
			_ = cw.Write([]string{ftoa(s.T), strconv.Itoa(r), ftoa(u[0]), ftoa(u[1])})
		}
	}
	cw.Flush()
	return cw.Error()
}

// WritePoolsCSV writes pools.csv: one row per sample and pool with an
// active job, pools by name within a sample.
func (c *Collector) WritePoolsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"t_s", "pool", "running_tasks", "demand_tasks", "share", "fair_share"})
	for _, p := range c.pools {
		_ = cw.Write([]string{ftoa(p.T), p.Pool, strconv.Itoa(p.Running), strconv.Itoa(p.Demand), ftoa(p.Share), ftoa(p.FairShare)})
	}
	cw.Flush()
	return cw.Error()
}
