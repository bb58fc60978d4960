// Package wire is the control protocol between the testbed's master and its
// workers: one JSON object a line over the worker process's standard input
// and output.
//
// Control traffic travels over pipes, not over the emulated network: the
// simulator does not model heartbeats or task-status messages (a few hundred
// bytes a second a node, against links of megabytes a second), so keeping
// them off the shaped links keeps the two comparable, and the pipes tie each
// worker's life to the master's (a worker whose standard input closes
// exits). Data (block reads, shuffle fetches, output pipelines) travels over
// TCP between the workers' namespaces.
//
// The master speaks first (Setup); a worker answers Ready; once every worker
// is ready the master sends Start, and a worker then sends a Heartbeat
// every heartbeat period on its phase and at once when a task attempt ends, as
// a Hadoop 1 TaskTracker does with out-of-band heartbeats. The master treats
// every Heartbeat, and only a Heartbeat, as an offer of the node's free
// slots, and answers with Launch and Kill messages. Transfers, reported as
// bytes finish moving, carry accounting only.
package wire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// Msg is one line of the protocol: exactly one field is set.
type Msg struct {
	Setup      *Setup      `json:"setup,omitempty"`
	Start      *Start      `json:"start,omitempty"`
	Launch     *Launch     `json:"launch,omitempty"`
	Kill       *Attempt    `json:"kill,omitempty"`
	MapOutputs *MapOutputs `json:"map_outputs,omitempty"`
	Shutdown   *Shutdown   `json:"shutdown,omitempty"`
	// Dump asks a worker to write its goroutines' stacks to a file in
	// Setup.LogDir, and go on.
	Dump *Dump `json:"dump,omitempty"`
	// StatusRequest asks a worker what each of its attempts waits on; it
	// answers Status.
	StatusRequest *StatusRequest `json:"status_request,omitempty"`

	Ready     *Ready     `json:"ready,omitempty"`
	Heartbeat *Heartbeat `json:"heartbeat,omitempty"`
	Transfers []Transfer `json:"transfers,omitempty"`
	// FetchFailed reports a failed fetch of map outputs; the reduce
	// retries the host after a back-off.
	FetchFailed *FetchFailed `json:"fetch_failed,omitempty"`
	// Recovered reports a peer an attempt could not reach and went on
	// without: a block read moved to another replica, a node dropped
	// from an output pipeline.
	Recovered *Recovered `json:"recovered,omitempty"`
	// Copied reports that a reduce attempt fetched all its input: it no
	// longer waits for maps, and computes and writes from now on (the
	// master's StarvedMaps kills only reduces still copying).
	Copied *Attempt `json:"copied,omitempty"`
	// Phase reports that an attempt crossed a phase boundary, so that the
	// master splits each job's time by part as the simulator does
	// (package critpath); a reduce's end of copying is Copied.
	Phase  *Phase  `json:"phase,omitempty"`
	Status *Status `json:"status,omitempty"`
	Fatal  string  `json:"fatal,omitempty"`
}

// FetchFailed is a reduce's failed fetch of map outputs from a node, as a
// Hadoop reduce reports fetch failures to the JobTracker
// (ShuffleSchedulerImpl.copyFailed): the node may well be alive (a reset,
// a timeout, a short read), so the master only counts the reports, and
// runs a map again after enough of them about it.
type FetchFailed struct {
	Attempt Attempt `json:"attempt"`
	Node    int     `json:"node"`
	Maps    []int   `json:"maps"`
	Err     string  `json:"err"`
}

// Recovery is what an attempt did when a peer could not be reached.
type Recovery string

// The recoveries a worker makes on its own, as HDFS's client does: neither
// fails the attempt, so only this report records them.
const (
	// OtherReplica is a map that read its block again from the next
	// replica (DFSInputStream's failover to another datanode).
	OtherReplica Recovery = "other_replica"
	// PipelineDrop is a reduce that wrote its output again through the
	// pipeline without a node (DataStreamer's recovery from a bad
	// datanode).
	PipelineDrop Recovery = "pipeline_drop"
)

// Recovered is an attempt that went on without node Node.
type Recovered struct {
	Attempt Attempt  `json:"attempt"`
	What    Recovery `json:"what"`
	Node    int      `json:"node"`
	Err     string   `json:"err"`
}

func (m *Msg) count() int {
	n := 0
	for _, set := range []bool{m.Setup != nil, m.Start != nil, m.Launch != nil, m.Kill != nil, m.MapOutputs != nil,
		m.Shutdown != nil, m.Dump != nil, m.StatusRequest != nil, m.Ready != nil, m.Heartbeat != nil, m.Transfers != nil,
		m.FetchFailed != nil, m.Recovered != nil, m.Copied != nil, m.Phase != nil, m.Status != nil, m.Fatal != ""} {
		if set {
			n++
		}
	}
	return n
}

// Setup tells a worker who it is and where everything is.
type Setup struct {
	Node int `json:"node"`
	// Addrs are every node's data-plane address (host:port), by node ID.
	Addrs []string `json:"addrs"`
	// Racks are every node's rack, by node ID.
	Racks []int `json:"racks"`
	// Dir is the node's directory: its block store and map outputs.
	Dir string `json:"dir"`
	// DiskBytesPerSec is the node's disk rate, shared by every read and
	// write on it.
	DiskBytesPerSec float64 `json:"disk_bytes_per_sec"`
	// HeartbeatS is the heartbeat period and PhaseS this node's offset
	// into it, wall seconds: phases spread the nodes over the period as
	// the simulator spreads them.
	HeartbeatS float64 `json:"heartbeat_s"`
	PhaseS     float64 `json:"phase_s"`
	// CongestionControl is the TCP congestion control of every data-plane
	// socket (TCP_CONGESTION); empty keeps the namespace's default.
	CongestionControl string `json:"congestion_control,omitempty"`
	// Timeouts bound every transfer, in wall seconds; zero fields take
	// Hadoop's defaults unscaled.
	Timeouts Timeouts `json:"timeouts"`
	// LogDir is where the worker writes goroutine dumps; empty for the
	// system's temporary directory.
	LogDir string `json:"log_dir,omitempty"`
}

// Timeouts are the data plane's timeouts and back-offs, wall seconds: the
// Hadoop defaults named on each field, scaled by the run's time scale.
type Timeouts struct {
	// ShuffleConnectS bounds a fetch's connection set-up
	// (mapreduce.reduce.shuffle.connect.timeout, 180 s).
	ShuffleConnectS float64 `json:"shuffle_connect_s,omitempty"`
	// ShuffleReadS bounds the time a fetch waits for any byte
	// (mapreduce.reduce.shuffle.read.timeout, 180 s).
	ShuffleReadS float64 `json:"shuffle_read_s,omitempty"`
	// PenaltyS is the first back-off of a host a fetch failed against,
	// growing 1.3 times a failure of the map up to MaxPenaltyS
	// (ShuffleSchedulerImpl's INITIAL_PENALTY 10 s and
	// PENALTY_GROWTH_RATE 1.3; mapreduce.reduce.shuffle.retry-delay.max.ms,
	// 60 s).
	PenaltyS    float64 `json:"penalty_s,omitempty"`
	MaxPenaltyS float64 `json:"max_penalty_s,omitempty"`
	// HDFSSocketS bounds a block read's or a pipeline write's connection
	// set-up and every wait for a byte in either direction
	// (dfs.client.socket-timeout, 60 s).
	HDFSSocketS float64 `json:"hdfs_socket_s,omitempty"`
}

// Hadoop's defaults of the timeouts, scenario seconds.
const (
	ShuffleConnectTimeoutS = 180
	ShuffleReadTimeoutS    = 180
	ShufflePenaltyS        = 10
	ShuffleMaxPenaltyS     = 60
	HDFSSocketTimeoutS     = 60
)

// Scaled returns Hadoop's default timeouts at time scale ts (wall seconds
// a scenario second), none below floorS wall seconds: TCP's own
// retransmission back-off (200 ms, doubling) does not scale, so a timeout
// scaled below a few seconds would take a congested but live transfer for
// a failed one.
func Scaled(ts, floorS float64) Timeouts {
	f := func(s float64) float64 { return max(s*ts, floorS) }
	return Timeouts{ShuffleConnectS: f(ShuffleConnectTimeoutS), ShuffleReadS: f(ShuffleReadTimeoutS),
		PenaltyS: ShufflePenaltyS * ts, MaxPenaltyS: ShuffleMaxPenaltyS * ts, HDFSSocketS: f(HDFSSocketTimeoutS)}
}

// WithDefaults fills zero fields with Hadoop's defaults, unscaled.
func (t Timeouts) WithDefaults() Timeouts {
	set := func(p *float64, v float64) {
		if !(*p > 0) {
			*p = v
		}
	}
	set(&t.ShuffleConnectS, ShuffleConnectTimeoutS)
	set(&t.ShuffleReadS, ShuffleReadTimeoutS)
	set(&t.PenaltyS, ShufflePenaltyS)
	set(&t.MaxPenaltyS, ShuffleMaxPenaltyS)
	set(&t.HDFSSocketS, HDFSSocketTimeoutS)
	return t
}

// Start tells a worker to begin heartbeating. EpochUnixNano is the
// wall-clock instant of the scenario's time 0 (the same for every node:
// they share the host's clock); a node beats at epoch + phase + k x
// period, as the simulator's node beats at phase + k x period from time
// 0, so heartbeats meet the jobs' arrivals as they do in the simulator.
type Start struct {
	EpochUnixNano int64 `json:"epoch_unix_nano"`
}

// Ready is a worker's answer to Setup: it listens, and beats once started.
type Ready struct {
	Node int `json:"node"`
}

// Shutdown asks a worker to stop.
type Shutdown struct{}

// Dump asks for a goroutine dump; Name goes into the file's name.
type Dump struct {
	Name string `json:"name"`
}

// StatusRequest asks a worker for its attempts' states.
type StatusRequest struct{}

// Status is a worker's answer to StatusRequest: one line an attempt,
// saying what it is doing or waiting on, and since when.
type Status struct {
	Node     int      `json:"node"`
	Attempts []string `json:"attempts"`
}

// TaskKind is a task's kind on the wire.
type TaskKind string

// The task kinds.
const (
	Map    TaskKind = "map"
	Reduce TaskKind = "reduce"
)

// Attempt names one attempt of one task.
type Attempt struct {
	Job     int      `json:"job"`
	Kind    TaskKind `json:"kind"`
	Task    int      `json:"task"`
	Attempt int      `json:"attempt"`
}

func (a Attempt) String() string {
	return fmt.Sprintf("job %d %s %d attempt %d", a.Job, a.Kind, a.Task, a.Attempt)
}

// Launch starts a task attempt on the worker that receives it.
type Launch struct {
	Attempt Attempt `json:"attempt"`
	// Seed and JobName key the job's generated bytes (package content).
	Seed    uint64 `json:"seed"`
	JobName string `json:"job_name"`
	// BytesPerSec is the task's compute rate: a map consumes its input, a
	// reduce its fetched bytes, at most this fast.
	BytesPerSec float64 `json:"bytes_per_sec"`
	// StartupS is a fixed wall-clock delay before the attempt does
	// anything (the scenario's engine.task_startup_s, scaled).
	StartupS float64     `json:"startup_s,omitempty"`
	Map      *MapTask    `json:"map,omitempty"`
	Reduce   *ReduceTask `json:"reduce,omitempty"`
}

// MapTask is what a map reads and writes.
type MapTask struct {
	// Source is the node holding the replica the map reads (its own node
	// for a local read).
	Source int `json:"source"`
	// Others are the block's other replicas, nearest first: where the map
	// reads again, from the beginning, if its source's node dies under it
	// (HDFS's client moves to the next replica when a datanode fails).
	Others     []int `json:"others,omitempty"`
	InputBytes int64 `json:"input_bytes"`
	// Partitions are the output bytes for each reduce.
	Partitions []int64 `json:"partitions"`
}

// ReduceTask is what a reduce fetches and writes.
type ReduceTask struct {
	Maps           int   `json:"maps"`
	ParallelCopies int   `json:"parallel_copies"`
	OutputBytes    int64 `json:"output_bytes"`
	// Pipeline are the nodes that hold the output's further replicas, in
	// pipeline order (the writer holds the first).
	Pipeline []int `json:"pipeline"`
	// Ready are the map outputs finished before the launch; later ones
	// come as MapOutputs.
	Ready []MapOutput `json:"ready,omitempty"`
}

// MapOutput says where a finished map's output can be fetched. Node -1
// says the output announced before is obsolete (the master runs the map
// again, as Hadoop's JobTracker tells reduces of an obsolete map output):
// the reduce stops fetching it and waits for its new place.
type MapOutput struct {
	Map  int `json:"map"`
	Node int `json:"node"`
	// RunS is how long the map's attempt ran, wall seconds: a reduce's
	// shuffle gives up on a stalled copy only after half the longest
	// (Hadoop's ShuffleSchedulerImpl reads maxMapRuntime the same way).
	RunS float64 `json:"run_s,omitempty"`
}

// MapOutputs announces finished maps of a job to the reduces of it that run
// on the receiving worker.
type MapOutputs struct {
	Job     int         `json:"job"`
	Outputs []MapOutput `json:"outputs"`
}

// Heartbeat reports a node alive, with the task attempts that ended since
// the last one; the master answers with its decisions for the node's free
// slots.
type Heartbeat struct {
	Node  int     `json:"node"`
	Ended []Ended `json:"ended,omitempty"`
	// Moved is every byte the node's data plane has received or sent so
	// far, and Paced the attempts now in a paced phase (start-up,
	// compute): what the master's stall watch reads as progress.
	Moved int64 `json:"moved,omitempty"`
	Paced int   `json:"paced,omitempty"`
	// Progress is each running map attempt's progress, as a Hadoop
	// TaskTracker's heartbeat carries its tasks' status: what the
	// master's speculation reads.
	Progress []MapProgress `json:"progress,omitempty"`
}

// MapProgress is a running map attempt's progress, from 0 to 1: its
// input read counts 2/3, its output written 1/3, as Hadoop's map counts
// its map phase and its sort.
type MapProgress struct {
	Attempt Attempt `json:"attempt"`
	Done    float64 `json:"done"`
}

// Ended is an attempt that ended, by success or failure.
type Ended struct {
	Attempt Attempt `json:"attempt"`
	// Err is why the attempt failed; empty for success.
	Err string `json:"err,omitempty"`
	// NoReplica says a map failed because it could reach no replica of
	// its block (every node holding one dead or unreachable).
	NoReplica bool `json:"no_replica,omitempty"`
	// Digest is a reduce's output digest (hex), which every replica
	// confirmed.
	Digest string `json:"digest,omitempty"`
}

// Phase is an attempt's phase boundary: its start-up ended (PhaseReady),
// a map finished reading its input (PhaseReadDone), a reduce began
// writing its output (PhaseWriteStart).
type Phase struct {
	Attempt Attempt   `json:"attempt"`
	Mark    PhaseMark `json:"mark"`
}

// PhaseMark names a phase boundary.
type PhaseMark string

// The phase boundaries a worker reports.
const (
	PhaseReady      PhaseMark = "ready"
	PhaseReadDone   PhaseMark = "read_done"
	PhaseWriteStart PhaseMark = "write_start"
)

// Cause is why bytes crossed the network, as the simulator's metrics count
// them.
type Cause string

// The causes of traffic.
const (
	RemoteMap Cause = "remote_map"
	Shuffle   Cause = "shuffle"
	Output    Cause = "output"
)

// Transfer is bytes that finished crossing the network: a remote block
// read, one shuffle fetch, or one reduce's output pipeline.
type Transfer struct {
	Job   int   `json:"job"`
	Cause Cause `json:"cause"`
	// Bytes is the payload moved (scaled bytes, as on the wire).
	Bytes int64 `json:"bytes"`
	// CrossRack says whether the bytes crossed a rack uplink.
	CrossRack bool `json:"cross_rack"`
}

// Conn sends and receives messages over a pair of streams. Send is safe
// for concurrent use; Recv is not.
type Conn struct {
	mu  sync.Mutex
	enc *json.Encoder
	dec *bufio.Scanner
	who string
}

// maxLine bounds one message: a reduce's launch lists the map outputs
// ready so far, a few tens of bytes each.
const maxLine = 64 << 20

// NewConn speaks over r and w; who names the peer in errors.
func NewConn(r io.Reader, w io.Writer, who string) *Conn {
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), maxLine)
	return &Conn{enc: json.NewEncoder(w), dec: s, who: who}
}

// Send writes one message.
func (c *Conn) Send(m Msg) error {
	if n := m.count(); n != 1 {
		return fmt.Errorf("wire: a message carries exactly one part, this one %d", n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.enc.Encode(&m); err != nil {
		return fmt.Errorf("wire: sending to %s: %w", c.who, err)
	}
	return nil
}

// ErrClosed is returned by Recv when the peer closed its stream cleanly.
var ErrClosed = errors.New("wire: connection closed")

// Recv reads the next message.
func (c *Conn) Recv() (Msg, error) {
	if !c.dec.Scan() {
		if err := c.dec.Err(); err != nil {
			return Msg{}, fmt.Errorf("wire: reading from %s: %w", c.who, err)
		}
		return Msg{}, ErrClosed
	}
	var m Msg
	if err := json.Unmarshal(c.dec.Bytes(), &m); err != nil {
		return Msg{}, fmt.Errorf("wire: bad message from %s: %v", c.who, err)
	}
	if n := m.count(); n != 1 {
		return Msg{}, fmt.Errorf("wire: message from %s carries %d parts, want 1", c.who, n)
	}
	return m, nil
}
