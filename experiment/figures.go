package experiment

import (
	"github.com/mrsched/mrsched/experiment/harness"
	"github.com/mrsched/mrsched/report"
)

// The figures under experiment/figures/, one or more per paper, each
// drawing an experiment's CSV rows the way the paper's figure draws its
// numbers. They are regenerated (a few minutes on 2 cores) by
//
//go:generate go run ../cmd/mrsched experiment -q -figures figures

// The figures, each named in its experiment's entry (Plot).
var (
	swMapFigure = harness.MapFigure("shufflewatcher/map: SW-fair's mean turnaround over Fair's by load and over-subscription",
		"Each cell is SW-fair's mean turnaround over Fair's on the same seed, averaged over seeds, on the paper's cluster under the "+
			"hadoop1-hdd costs at Table 3's bytes, with every task's CPU cost per byte times the factor across (the slots' load) and "+
			"the racks' uplink speed up (10 nodes of 250 Mbit/s: 10:1, 5:1 and 2.5:1 over-subscription). Blue: SW-fair faster; red: Fair "+
			"faster. The outlined cell is the paper's operating point.",
		"Fig. 8 reports, at the paper's point (500 Mbit/s uplinks, 30 users, the load at which Delay used the cluster most), SW-fair's "+
			"job turnaround 27% below Fair's (0.73) and its throughput 39% above.",
		swMap())
	smallJobsFigure = &report.TableFigure{
		Title: "fair-delay/small-jobs: throughput gain of delay scheduling by job size (the paper's Fig. 12)",
		Caption: "Throughput of each small-jobs workload (a batch of scan jobs of 3, 10 or 100 maps, sized to keep the map slots " +
			"busy 10 minutes) over FIFO's on the same batch: FIFO's workload time / the scheduler's. Mean over seeds, bars from the " +
			"lowest to the highest seed; grey rings are the paper's values.",
		Paper: "Fig. 12 shows the normalised running times of the small-jobs workloads in the private cluster, with and without " +
			"delay scheduling (T1 = T2 = 15 s; FIFO performed like fair sharing): delay scheduling raised throughput 1.2x for " +
			"3-map jobs, 1.7x for 10-map jobs and 1.3x for 100-map jobs (section 6.2.1).",
		X: "maps", XTicks: "maps", XLabel: "maps per job", LogX: true, Series: "scheduler",
		Y:      []report.YColumn{{Col: "throughput_gain", Low: "throughput_gain_min", High: "throughput_gain_max", Paper: "paper_throughput_gain"}},
		YLabel: "throughput / FIFO's",
	}
	swTimeseriesFigure = &report.TableFigure{
		Title: "shufflewatcher/timeseries: cross-rack shuffle over time, Fair and SW-fair (the paper's Fig. 1 and 10)",
		Caption: "Cross-rack shuffle traffic, averaged over each minute, over the whole run of seed 1 (arrivals for two hours; the " +
			"measured window is its middle hour) under Fair and SW-fair.",
		Paper: "Fig. 1 shows the cross-rack shuffle traffic over four hours of the 100-node EC2 cluster under the Fair Scheduler, " +
			"swinging between bursts and lulls; Fig. 10 shows it under ShuffleWatcher, 'relatively balanced' (section 5.2).",
		X: "t_s", XDiv: 60, XLabel: "simulated time (min)", Series: "policy",
		Y:      []report.YColumn{{Col: "cross_rack_shuffle_mbps"}},
		YLabel: "cross-rack shuffle (Mb/s)", YMin0: true,
	}
	nasCluster40Figure = &report.TableFigure{
		Title: "nas/cluster40: throughput, job time and cross-rack traffic over Fair's (the paper's Fig. 4)",
		Caption: "Each scheduler's throughput (jobs / time to run them all), mean job execution time and cross-rack bytes, over " +
			"Fair's on the same seed, on the model of the paper's 40-node cluster with 200 jobs of the FB-2010 trace. Mean over " +
			"seeds, bars from the lowest to the highest seed; grey rings are the paper's values.",
		Paper: "Fig. 4 shows the real-cluster results normalised to Fair: (a) throughput, NAS 62.5% above Fair and 52.1% above " +
			"Delay; (b) mean job execution time, NAS 44.6% below Fair and 32.1% below Delay; (c) cross-rack shuffle traffic, " +
			"lower under SW-delay and NAS than under Fair and Delay (section IV-B).",
		X: "scheduler", XCategorical: true, Points: true, XLabel: "",
		Y: []report.YColumn{
			{Col: "throughput_x", Low: "throughput_x_min", High: "throughput_x_max", Paper: "paper_throughput_x", Label: "throughput"},
			{Col: "job_time_x", Low: "job_time_x_min", High: "job_time_x_max", Paper: "paper_job_time_x", Label: "job time"},
			{Col: "cross_rack_x", Low: "cross_rack_x_min", High: "cross_rack_x_max", Label: "cross-rack bytes"},
		},
		YLabel: "over Fair's",
	}
	tdDataSizeFigure = &report.TableFigure{
		Title: "td/data-size: queue completion time against data size (the paper's Fig. 7)",
		Caption: "Time from a job queue's submission to its last job's finish, by the queue's total input, for queues of small " +
			"jobs, a mix and large jobs, under FIFO, Fair and TD. Mean over queues (seeds), bars from the lowest to the highest.",
		Paper: "Fig. 7 plots the completion time of small, mixed and large job queues from 100 to 300 GB (no values in the text): " +
			"TD's is the shortest at every size, and the more small jobs in a queue, the slower FIFO and Fair (section V-A).",
		X: "data_gb", XLabel: "data (GB)", Panel: "queue",
		Y: []report.YColumn{
			{Col: "fifo_s", Low: "fifo_s_min", High: "fifo_s_max", Label: "FIFO"},
			{Col: "fair_s", Low: "fair_s_min", High: "fair_s_max", Label: "Fair"},
			{Col: "td_s", Low: "td_s_min", High: "td_s_max", Label: "TD"},
		},
		YLabel: "completion (s)", YMin0: true,
	}
	nasMapFigure = harness.LogColours(harness.MapFigure("nas/map: NAS's mean job time over Delay's by offered load and users",
		"NAS's mean job time over Delay's on the same seed, both at the NAS paper's simulation parameters (D^m = D^r = 135 "+
			"on freed containers; Delay 15 s + 15 s), for FB-2010 jobs submitted in the trace's first 2 hours on the paper's "+
			"600 nodes, by the trace's bytes scale (offered load) and users; mean over seeds. Below 1 (blue) NAS is faster. "+
			"The marked cell is the paper's operating point (bytes as traced, 200 users), on this window.",
		"No figure of the paper maps regimes. Its simulation (section IV-B) has NAS's mean job time 33.9% below Delay's on the "+
			"whole day with bytes as traced and 200 users, and Fig. 3(h) NAS's throughput rising with fewer users.",
		nasMap))
)
