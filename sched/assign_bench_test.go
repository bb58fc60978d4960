package sched_test

import (
	"fmt"
	"testing"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/workload"
)

// BenchmarkAssign measures one decision of every registered policy on a
// 600-node cluster (30 racks of 20, 6 containers a node) holding 200 jobs
// over 200 pools, as the NAS set-up does, at three numbers of pending maps
// (1,000, 10,000 and 100,000 in all). Every map is pending and every job's
// reduces are enabled, so each policy has its widest choice. A policy
// whose cost grows tenfold with each step scans pending tasks where an
// index would do; docs/performance.md lists the figures.
//
//	go test ./sched -run '^$' -bench 'Assign/' -benchtime 1000x
func BenchmarkAssign(b *testing.B) {
	topo, err := cluster.New(cluster.Config{Racks: 30, NodesPerRack: 20, Containers: 6})
	if err != nil {
		b.Fatal(err)
	}
	for _, pending := range []int{1000, 10000, 100000} {
		for _, name := range sched.PolicyNames() {
			b.Run(fmt.Sprintf("%s/pending=%d", name, pending), func(b *testing.B) {
				c := &fakeCluster{topo: topo, total: map[sched.SlotKind]int{sched.AnySlot: 3600},
					free: map[cluster.NodeID]int{}}
				for n := range topo.NumNodes() {
					c.free[cluster.NodeID(n)] = 1
				}
				const jobs = 200
				for i := range jobs {
					f := cluster.NewPlacer(topo, uint64(i)+1).PlaceFile(pending/jobs, cluster.NoWriter)
					c.jobs = append(c.jobs, &sched.Job{Index: i, Pool: fmt.Sprint("user", i), Submit: float64(i),
						NumMaps: pending / jobs, NumReduces: 10, ReducesEnabled: true,
						Maps: sched.NewMapIndex(topo, &f), Input: &f,
						MapOutputByRack: make([]float64, topo.NumRacks())})
				}
				p, err := sched.NewPolicy(name, nil)
				if err != nil {
					b.Fatal(err)
				}
				if jo, ok := p.(sched.JobObserver); ok {
					for _, j := range c.jobs {
						jo.JobAdded(c, j)
					}
				}
				b.ReportAllocs()
				n := cluster.NodeID(0)
				cpu0 := processCPU()
				for b.Loop() {
					p.Assign(c, sched.Offer{Node: n, Slot: sched.AnySlot})
					n = (n + 7) % cluster.NodeID(topo.NumNodes())
				}
				b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkAssignBacklog measures decisions in the busy regime a real
// cluster lives in: 200 users with 20 queued jobs each (4,000 jobs, 50 maps
// apiece) on the 600-node cluster, the cluster full, so that every offer is
// a freed slot: a running map ends (its job's demand and the cluster's
// epoch move, as on the engine's task end) and the policy is offered its
// node. A launch is applied as the engine applies it. The cost of one such
// end-and-offer must not grow with the backlog; compare users=50 and 200.
//
//	go test ./sched -run '^$' -bench 'AssignBacklog/' -benchtime 5000x
func BenchmarkAssignBacklog(b *testing.B) {
	topo, err := cluster.New(cluster.Config{Racks: 30, NodesPerRack: 20, Containers: 6})
	if err != nil {
		b.Fatal(err)
	}
	const perUser, maps = 20, 50
	for _, users := range []int{50, 200} {
		for _, name := range sched.PolicyNames() {
			b.Run(fmt.Sprintf("%s/users=%d", name, users), func(b *testing.B) {
				c := backlogCluster(topo, users, perUser, maps, nil)
				p, err := sched.NewPolicy(name, nil)
				if err != nil {
					b.Fatal(err)
				}
				jo, _ := p.(sched.JobObserver)
				to, _ := p.(sched.TaskObserver)
				if jo != nil {
					for _, j := range c.jobs {
						jo.JobAdded(c, j)
					}
				}
				// Fill the cluster: every slot runs a map of the oldest jobs.
				type task struct {
					j *sched.Job
					n cluster.NodeID
				}
				var running []task
				next := 0
				for n := range topo.NumNodes() {
					for range 6 {
						for next < len(c.jobs) && c.jobs[next].PendingMaps() == 0 {
							next++
						}
						j := c.jobs[next]
						i, _ := j.Maps.Any()
						j.Maps.Take(i)
						j.RunningMaps++
						if to != nil {
							to.TaskLaunched(c, j, sched.MapTask, cluster.NodeID(n))
						}
						running = append(running, task{j, cluster.NodeID(n)})
					}
				}
				c.epoch++
				b.ReportAllocs()
				cpu0 := processCPU()
				k := 0
				for b.Loop() {
					// The oldest running map ends; its node is offered.
					t := running[k%len(running)]
					t.j.RunningMaps--
					t.j.FinishedMaps++
					c.epoch++
					c.now += 0.01
					if to != nil {
						to.TaskEnded(c, t.j, sched.MapTask, t.n, false)
					}
					c.free[t.n] = 1
					d, ok := p.Assign(c, sched.Offer{Node: t.n, Slot: sched.AnySlot, Freed: true})
					c.free[t.n] = 0
					if ok && d.Kind == sched.MapTask {
						d.Job.Maps.Take(d.Map)
						d.Job.RunningMaps++
						if to != nil {
							to.TaskLaunched(c, d.Job, sched.MapTask, t.n)
						}
						running[k%len(running)] = task{d.Job, t.n}
					} else {
						// Nothing launched (a hold, or a reduce we do not
						// run here): the slot stays busy with the ended
						// task's twin so the cluster stays full.
						t.j.RunningMaps++
						t.j.FinishedMaps--
					}
					k++
				}
				b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// BenchmarkAssignBacklogDecline measures the offers that dominate NAS's
// decisions on an overloaded cluster: an offer that launches nothing. The
// backlog is BenchmarkAssignBacklog's (200 users, 20 queued jobs each, 50
// maps a job, the 600-node cluster full), and node 0 runs more maps than
// it has containers, so that their predicted output exceeds its
// TrafficThreshold and no map qualifies for it: MTS skips every user,
// and with no reduce enabled the offer launches nothing. Each operation
// ends a map elsewhere and starts another there (the order's state moves,
// as it does between two offers of a run), then offers node 0 a slot
// that was already idle. Only the nas* policies are run: for the others
// the same offer launches.
//
//	go test ./sched -run '^$' -bench 'AssignBacklogDecline/' -benchtime 3000x
func BenchmarkAssignBacklogDecline(b *testing.B) {
	topo, err := cluster.New(cluster.Config{Racks: 30, NodesPerRack: 20, Containers: 6})
	if err != nil {
		b.Fatal(err)
	}
	const users, perUser, maps, blockBytes = 200, 20, 50, 128 << 20
	// Without TrafficThreshold (nas-no-tt*) every node-local map
	// qualifies, and the same offer launches.
	for _, name := range []string{"nas", "nas-mts", "nas-mts-carts"} {
		b.Run(name, func(b *testing.B) {
			// A map's output is predicted as its input until one
			// finishes: a block each.
			c := backlogCluster(topo, users, perUser, maps, &workload.Job{NumMaps: maps, InputBytes: maps * blockBytes, ShuffleBytes: maps * blockBytes})
			p, err := sched.NewPolicy(name, nil)
			if err != nil {
				b.Fatal(err)
			}
			jo := p.(sched.JobObserver)
			to := p.(sched.TaskObserver)
			for _, j := range c.jobs {
				jo.JobAdded(c, j)
			}
			launch := func(j *sched.Job, n cluster.NodeID) {
				i, _ := j.Maps.Any()
				j.Maps.Take(i)
				j.RunningMaps++
				to.TaskLaunched(c, j, sched.MapTask, n)
			}
			// Fill the cluster from the oldest jobs; node 0 gets twice its
			// containers' maps, so its available shuffle space is negative.
			next := 0
			type task struct {
				j *sched.Job
				n cluster.NodeID
			}
			var running []task
			for n := range topo.NumNodes() {
				per := 6
				if n == 0 {
					per = 12
				}
				for range per {
					for c.jobs[next].PendingMaps() == 0 {
						next++
					}
					launch(c.jobs[next], cluster.NodeID(n))
					if n != 0 {
						running = append(running, task{c.jobs[next], cluster.NodeID(n)})
					}
				}
			}
			c.free[0] = 1
			c.epoch++
			b.ReportAllocs()
			cpu0 := processCPU()
			k, declined := 0, 0
			for b.Loop() {
				// A map ends elsewhere and the next oldest job's map
				// starts in its place.
				t := &running[k%len(running)]
				t.j.RunningMaps--
				t.j.FinishedMaps++
				t.j.MapOutputByRack[topo.Rack(t.n)] += blockBytes
				to.TaskEnded(c, t.j, sched.MapTask, t.n, false)
				for c.jobs[next].PendingMaps() == 0 {
					next = (next + 1) % len(c.jobs)
				}
				launch(c.jobs[next], t.n)
				t.j = c.jobs[next]
				c.epoch++
				c.now += 0.01
				if _, ok := p.Assign(c, sched.Offer{Node: 0, Slot: sched.AnySlot}); !ok {
					declined++
				}
				k++
			}
			b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
			if declined != b.N {
				b.Fatalf("%d of %d offers to the overloaded node launched a task; the benchmark measures offers that launch nothing", b.N-declined, b.N)
			}
		})
	}
}

// backlogCluster is the backlog benchmarks' cluster: users x perUser
// queued jobs of maps maps and 10 reduces, in pools user0, user1, ...,
// submitted one a second, each input placed by its own seed, on the
// 600-node cluster's 3,600 containers. Each job gets a copy of spec, when
// given.
func backlogCluster(topo *cluster.Topology, users, perUser, maps int, spec *workload.Job) *fakeCluster {
	c := &fakeCluster{topo: topo, total: map[sched.SlotKind]int{sched.AnySlot: 3600}, free: map[cluster.NodeID]int{}}
	for i := range users * perUser {
		f := cluster.NewPlacer(topo, uint64(i)+1).PlaceFile(maps, cluster.NoWriter)
		j := &sched.Job{Index: i, Pool: fmt.Sprint("user", i%users), Submit: float64(i),
			NumMaps: maps, NumReduces: 10, Maps: sched.NewMapIndex(topo, &f), Input: &f,
			MapOutputByRack: make([]float64, topo.NumRacks())}
		if spec != nil {
			s := *spec
			j.Spec = &s
		}
		c.jobs = append(c.jobs, j)
	}
	return c
}
