package sim

import (
	"math"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/workload"
)

// TestTransportTCPGivesPayloadItsShare pins transport tcp: every NIC and
// uplink carries payload at TCPPayloadFraction of its rate, disks at
// theirs; an off-rack map read held to an uplink of 1e6 B/s therefore takes
// twice as long at a fraction of 0.5, and exactly as long under maxmin.
func TestTransportTCPGivesPayloadItsShare(t *testing.T) {
	cfg := cluster.Config{Racks: 2, NodesPerRack: 1, MapSlots: 1, ReduceSlots: 1, Replication: 1,
		NICMbps: 1000, RackUplinkMbps: 8, BlockMB: 1}
	topo := mustTopo(t, cfg)
	caps := append([]float64(nil), topo.LinkCapacities()...)
	payloadOnly(caps, topo, 0.5)
	for n := range topo.NumNodes() {
		id := cluster.NodeID(n)
		if caps[topo.DiskLink(id)] != topo.LinkCapacities()[topo.DiskLink(id)] {
			t.Errorf("node %d's disk: %v B/s, want its own rate: disks carry no frame headers", n, caps[topo.DiskLink(id)])
		}
		for _, l := range [][2]float64{{caps[topo.NICUp(id)], topo.LinkCapacities()[topo.NICUp(id)]}, {caps[topo.NICDown(id)], topo.LinkCapacities()[topo.NICDown(id)]}} {
			if l[0] != 0.5*l[1] {
				t.Errorf("node %d's NIC: %v B/s, want half of %v", n, l[0], l[1])
			}
		}
	}
	if up := topo.UplinkUp(0); caps[up] != 0.5*topo.LinkCapacities()[up] {
		t.Errorf("rack 0's uplink: %v B/s, want half of %v", caps[up], topo.LinkCapacities()[up])
	}

	block := topo.Config().BlockBytes()
	remote := 0
	for seed := uint64(1); seed <= 8; seed++ {
		took := map[string]float64{}
		local := false
		for _, tr := range []struct {
			name string
			p    Params
		}{{"maxmin", Params{HeartbeatS: 1}}, {"tcp", Params{HeartbeatS: 1, Transport: TransportTCP, TCPPayloadFraction: 0.5}}} {
			jobs := []workload.Job{newJob(0, 0).maps(1, block, 0.01).emptyReduce().build()}
			p := tr.p
			p.CheckInvariants = true
			e, err := New(p, topo, jobs, mustPolicy(t, "fifo"), seed)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Run(); err != nil {
				t.Fatal(err)
			}
			r := e.Collector().Jobs()[0]
			local = r.Locality[cluster.NodeLocal] == 1
			took[tr.name] = r.Finish - r.FirstLaunch
		}
		if local {
			continue
		}
		remote++
		// maxmin: 1 MiB over 1e6 B/s; tcp: over 0.5e6 B/s.
		if want := float64(block) / 1e6; math.Abs(took["maxmin"]-want) > 1e-6 || math.Abs(took["tcp"]-2*want) > 1e-6 {
			t.Errorf("seed %d: an off-rack map took %.6f s (maxmin) and %.6f s (tcp); want %.6f and %.6f: the uplink gives payload half its rate under tcp",
				seed, took["maxmin"], took["tcp"], want, 2*want)
		}
	}
	if remote == 0 {
		t.Fatal("no seed of 1-8 ran the map off-rack: the case checks nothing")
	}
}

func TestTransportParamsNameWhatIsWrong(t *testing.T) {
	tests := []struct {
		name string
		p    Params
		want string // "" for valid
	}{
		{"the default", Params{}, ""},
		{"maxmin named", Params{Transport: TransportMaxMin}, ""},
		{"tcp with its default fraction", Params{Transport: TransportTCP}, ""},
		{"tcp with a fraction", Params{Transport: TransportTCP, TCPPayloadFraction: 0.94}, ""},
		{"an unknown transport", Params{Transport: "quic"}, `engine.transport: "quic"`},
		{"a fraction above 1", Params{Transport: TransportTCP, TCPPayloadFraction: 1.2}, "engine.tcp_payload_fraction: 1.2"},
		{"a fraction without tcp", Params{TCPPayloadFraction: 0.9}, "applies only with engine.transport: tcp"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.WithDefaults().Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Validate: %v; want valid", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Validate: %v; want an error saying %q", err, tc.want)
			}
		})
	}
	if got := (Params{Transport: TransportTCP}).WithDefaults().TCPPayloadFraction; got != DefaultTCPPayloadFraction {
		t.Errorf("tcp's default fraction %v, want %v (1,448 bytes of payload in a 1,514-byte frame)", got, DefaultTCPPayloadFraction)
	}
}
