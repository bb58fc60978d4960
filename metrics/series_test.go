package metrics

import (
	"bytes"
	"testing"
)

// TestUplinkPeriodIsMeanOfMonitorSamples pins uplinks.csv's definition: a
// row is the mean of the monitor samples taken since the previous row, per
// rack and direction, and a period without samples reads zero.
func TestUplinkPeriodIsMeanOfMonitorSamples(t *testing.T) {
	c := New(Options{})
	c.UplinkMonitorSample([][2]float64{{0.2, 1}, {0, 0.5}})
	c.UplinkMonitorSample([][2]float64{{0.4, 0}, {1, 0.5}})
	c.EndUplinkPeriod(60, 2)
	c.EndUplinkPeriod(120, 2) // no sample in between
	c.UplinkMonitorSample([][2]float64{{0.9, 0.3}, {0.1, 0.2}})
	c.EndUplinkPeriod(180, 2)
	got := c.Uplinks()
	want := []UplinkSample{
		{60, [][2]float64{{0.3, 0.5}, {0.5, 0.5}}},
		{120, [][2]float64{{0, 0}, {0, 0}}},
		{180, [][2]float64{{0.9, 0.3}, {0.1, 0.2}}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d samples, want %d (one per EndUplinkPeriod)", len(got), len(want))
	}
	for i := range want {
		if got[i].T != want[i].T {
			t.Errorf("sample %d at t=%v, want %v", i, got[i].T, want[i].T)
		}
		for r := range want[i].Util {
			for d := range 2 {
				if diff := got[i].Util[r][d] - want[i].Util[r][d]; diff > 1e-12 || diff < -1e-12 {
					t.Errorf("sample %d rack %d direction %d = %v, want %v: the mean of the monitor samples since the last row",
						i, r, d, got[i].Util[r][d], want[i].Util[r][d])
				}
			}
		}
	}
	var b bytes.Buffer
	if err := c.WriteUplinksCSV(&b); err != nil {
		t.Fatal(err)
	}
	head := "t_s,rack,up_util,down_util\n60.000000,0,0.300000,0.500000\n60.000000,1,0.500000,0.500000\n"
	if !bytes.HasPrefix(b.Bytes(), []byte(head)) {
		t.Errorf("uplinks.csv starts\n%s\nwant\n%s(one row per sample and rack, racks in order)", b.String()[:min(len(b.String()), len(head))], head)
	}
}

func TestWritePoolsCSV(t *testing.T) {
	c := New(Options{})
	c.AddPoolSamples([]PoolSample{
		{T: 60, Pool: "a", Running: 3, Demand: 5, Share: 0.25, FairShare: 0.5},
		{T: 60, Pool: "b", Running: 9, Demand: 9, Share: 0.75, FairShare: 0.5},
	})
	var b bytes.Buffer
	if err := c.WritePoolsCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "t_s,pool,running_tasks,demand_tasks,share,fair_share\n" +
		"60.000000,a,3,5,0.250000,0.500000\n60.000000,b,9,9,0.750000,0.500000\n"
	if b.String() != want {
		t.Errorf("pools.csv =\n%s\nwant\n%s", b.String(), want)
	}
}
