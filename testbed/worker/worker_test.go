package worker

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/pace"
	"github.com/mrsched/mrsched/testbed/wire"
)

// testCluster is a few workers' data planes on loopback, without the control
// protocol: what the fetcher, the block reader and the pipeline talk to.
type testCluster struct {
	ws []*Worker
}

// listen opens a listener on a loopback address of its own for node i.
func listen(t *testing.T, i int) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", 20+i))
	if err != nil {
		t.Skipf("cannot listen on loopback: %v", err)
	}
	return ln
}

// hangUp drops the connection under w without a response, as a node that
// dies mid-request does.
func hangUp(w http.ResponseWriter) {
	hj, _ := w.(http.Hijacker)
	conn, _, _ := hj.Hijack()
	conn.Close()
}

// goneNode takes connections and drops them unanswered: a dead node.
var goneNode = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hangUp(w) })

// cutBlock serves block as a block read does, promising all of it, and
// hangs up after the first sent bytes: a source that dies mid-block.
func cutBlock(block []byte, sent int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(hdrLength, fmt.Sprint(len(block)))
		w.Header().Set("Content-Length", fmt.Sprint(len(block)))
		w.Write(block[:sent])
		hangUp(w)
	})
}

// newCluster starts n workers' servers; racks gives each node's rack. A
// node whose handler is given in fakes serves that handler instead.
func newCluster(t *testing.T, racks []int, fakes map[int]http.Handler) *testCluster {
	t.Helper()
	n := len(racks)
	lns := make([]net.Listener, n)
	addrs := make([]string, n)
	for i := range n {
		lns[i] = listen(t, i)
		addrs[i] = lns[i].Addr().String()
	}
	c := &testCluster{}
	for i := range n {
		store, err := NewStore(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		w := &Worker{setup: wire.Setup{Node: i, Addrs: addrs, Racks: racks}, store: store, disk: pace.New(0),
			client: peerClient(nil, time.Minute, time.Minute, new(atomic.Int64)), shuffle: peerClient(nil, time.Minute, time.Minute, new(atomic.Int64)),
			timeouts: wire.Timeouts{}.WithDefaults(), phases: map[wire.Attempt]*phase{},
			attempts: map[wire.Attempt]context.CancelFunc{}, fetchers: map[int][]*fetcher{}, kick: make(chan struct{}, 1)}
		w.conn = wire.NewConn(strings.NewReader(""), io.Discard, "test")
		h := w.routes()
		if f, ok := fakes[i]; ok {
			h = f
		}
		srv := &http.Server{Handler: h}
		go srv.Serve(lns[i])
		t.Cleanup(func() { srv.Close() })
		c.ws = append(c.ws, w)
	}
	return c
}

// putOutput stores a map output of job 0 with the given partitions on w.
// threeMapFetch puts the outputs of three maps (maps 0 and 2 on node 0,
// map 1 on node 1; partition 1 of each is part) and returns node 2's
// fetcher of them for reduce 1, two copies at a time. The maps ran 2 s,
// so the shuffle is not stalled before 1 s without a copy.
func threeMapFetch(t *testing.T, c *testCluster, part []byte) *fetcher {
	t.Helper()
	putOutput(t, c.ws[0], 0, []byte("r0"), part)
	putOutput(t, c.ws[1], 1, []byte("r0"), part)
	putOutput(t, c.ws[0], 2, []byte("r0"), part)
	f := newFetcher(c.ws[2], wire.Attempt{Job: 0, Kind: wire.Reduce, Task: 1, Attempt: 1}, 3, 2)
	f.add([]wire.MapOutput{{Map: 0, Node: 0, RunS: 2}, {Map: 1, Node: 1, RunS: 2}, {Map: 2, Node: 0, RunS: 2}})
	return f
}

func putOutput(t *testing.T, w *Worker, m int, parts ...[]byte) {
	t.Helper()
	f, err := w.store.CreateOutput(0, m)
	if err != nil {
		t.Fatal(err)
	}
	var idx []Partition
	var off int64
	for _, p := range parts {
		f.Write(p)
		h := content.NewHasher()
		h.Write(p)
		idx = append(idx, Partition{Off: off, Len: int64(len(p)), Digest: h.Sum()})
		off += int64(len(p))
	}
	if err := w.store.Commit(f, 0, m, idx); err != nil {
		t.Fatal(err)
	}
}

func digestOf(b []byte) content.Digest {
	h := content.NewHasher()
	h.Write(b)
	return h.Sum()
}

// frame is one shuffle frame as a server sends it.
func frame(m int, b []byte, d content.Digest) []byte {
	var hdr [frameHeader]byte
	binary.BigEndian.PutUint64(hdr[0:], uint64(m))
	binary.BigEndian.PutUint64(hdr[8:], uint64(len(b)))
	copy(hdr[16:], d[:])
	return append(hdr[:], b...)
}

func TestReadFramesNamesWhatIsWrong(t *testing.T) {
	a, b := []byte("partition of map 1"), []byte("partition of map 4")
	good := append(frame(1, a, digestOf(a)), frame(4, b, digestOf(b))...)
	corrupt := bytes.Clone(good)
	corrupt[len(corrupt)-1] ^= 1
	tests := []struct {
		name string
		body []byte
		maps []int
		want string // in the error; empty for success
	}{
		{"two frames", good, []int{1, 4}, ""},
		{"a frame of another map", good, []int{2, 4}, "is map 1's, want map 2's"},
		{"a body cut inside a partition", good[:len(good)-3], []int{1, 4}, "unexpected EOF"},
		{"a body cut inside a header", good[:10], []int{1, 4}, "frame header: unexpected EOF"},
		{"a flipped byte", corrupt, []int{1, 4}, "digest"},
		{"bytes after the last frame", append(bytes.Clone(good), 'x'), []int{1, 4}, "after the last frame"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds, n, err := readFrames(bytes.NewReader(tc.body), tc.maps)
			if tc.want == "" {
				if err != nil || n != int64(len(a)+len(b)) || ds[0] != digestOf(a) || ds[1] != digestOf(b) {
					t.Fatalf("readFrames = %v, %d, %v; want both digests and %d bytes", ds, n, err, len(a)+len(b))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("readFrames: %v; want an error saying %q", err, tc.want)
			}
		})
	}
}

// messages captures what a worker sends its master.
func messages(t *testing.T, w *Worker) chan wire.Msg {
	t.Helper()
	pr, pw := io.Pipe()
	w.conn = wire.NewConn(pr, pw, "test")
	ch := make(chan wire.Msg, 64)
	go func() {
		for {
			m, err := w.conn.Recv()
			if err != nil {
				return
			}
			ch <- m
		}
	}()
	t.Cleanup(func() { pw.Close() })
	return ch
}

// TestFetcherCopiesEveryPartitionOrSaysWhyNot fetches a reduce's
// partitions from live servers, and from a node that breaks every
// transfer in each way a network or a store can. Each failure is reported
// to the master and the node retried after a back-off; none is taken for
// the node's death. If the master runs the map again elsewhere (its new
// place announced), the reduce completes; if not, it fails its attempt
// once the failures are too many, saying the last one.
func TestFetcherCopiesEveryPartitionOrSaysWhyNot(t *testing.T) {
	part := []byte(strings.Repeat("shuffle bytes ", 1000))
	breaks := []struct {
		name string
		fake http.Handler // what node 1 serves instead of its worker
		want string       // in the error of a reduce whose map is not moved
	}{
		{"the output is not there", http.NotFoundHandler(), "404"},
		{"a corrupt partition", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			bad := bytes.Clone(part)
			bad[7] ^= 0x20
			w.Write(frame(1, bad, digestOf(part)))
		}), "digest"},
		{"the connection is cut mid-partition", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", fmt.Sprint(frameHeader+len(part)))
			w.Write(frame(1, part, digestOf(part))[:frameHeader+100])
			hangUp(w)
		}), "unexpected EOF"},
		{"the server hangs up", goneNode, "EOF"},
	}
	type result struct {
		ds  []content.Digest
		n   int64
		err error
	}
	start := func(t *testing.T, fake http.Handler) (*testCluster, *fetcher, chan wire.Msg, chan result) {
		fakes := map[int]http.Handler{}
		if fake != nil {
			fakes[1] = fake
		}
		c := newCluster(t, []int{0, 1, 1}, fakes)
		fastRetries(c)
		msgs := messages(t, c.ws[2])
		f := threeMapFetch(t, c, part)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		t.Cleanup(cancel)
		done := make(chan result, 1)
		go func() { ds, n, err := f.run(ctx); done <- result{ds, n, err} }()
		return c, f, msgs, done
	}
	firstFailure := func(t *testing.T, msgs chan wire.Msg) {
		t.Helper()
		for deadline := time.After(5 * time.Second); ; {
			select {
			case m := <-msgs:
				if m.Transfers != nil {
					continue // the other fetches' accounting
				}
				if m.FetchFailed == nil || m.FetchFailed.Node != 1 || !slices.Equal(m.FetchFailed.Maps, []int{1}) {
					t.Fatalf("the worker told its master %+v; want a fetch failure of map 1 from node 1", m)
				}
				return
			case <-deadline:
				t.Fatal("no fetch failure reported")
			}
		}
	}
	checkAll := func(t *testing.T, res result) {
		t.Helper()
		if res.err != nil || res.n != 3*int64(len(part)) {
			t.Fatalf("fetch: %d bytes, %v; want %d bytes", res.n, res.err, 3*len(part))
		}
		for m, d := range res.ds {
			if d != digestOf(part) {
				t.Errorf("map %d's partition digest %s, want %s", m, d, digestOf(part))
			}
		}
	}
	t.Run("live servers", func(t *testing.T) {
		_, _, _, done := start(t, nil)
		checkAll(t, <-done)
	})
	for _, tc := range breaks {
		t.Run(tc.name+", the map run again elsewhere", func(t *testing.T) {
			c, f, msgs, done := start(t, tc.fake)
			firstFailure(t, msgs)
			// The master runs map 1 again on node 0: obsolete, then there.
			f.add([]wire.MapOutput{{Map: 1, Node: -1}})
			putOutput(t, c.ws[0], 1, []byte("r0"), part)
			f.add([]wire.MapOutput{{Map: 1, Node: 0, RunS: 2}})
			checkAll(t, <-done)
		})
		t.Run(tc.name+", the map left where it is", func(t *testing.T) {
			_, _, msgs, done := start(t, tc.fake)
			firstFailure(t, msgs)
			res := <-done
			if res.err == nil || !strings.Contains(res.err.Error(), "shuffle failed") || !strings.Contains(res.err.Error(), tc.want) {
				t.Fatalf("fetch: %v; want the attempt failed for too many fetch failures, saying %q", res.err, tc.want)
			}
		})
	}
}

// TestRemoteBlockReadChecksLengthAndDigest reads a block from another
// node, as a map off its data does, from a live server and from servers
// that send too little or the wrong bytes.
func TestRemoteBlockReadChecksLengthAndDigest(t *testing.T) {
	const n = 100 << 10
	k := content.BlockKey(1, "job0", 0)
	var blk bytes.Buffer
	io.Copy(&blk, content.Stream(k, n))
	tests := []struct {
		name string
		fake http.Handler
		want string
	}{
		{"a live server", nil, ""},
		{"a short body", cutBlock(blk.Bytes(), n/2), "read 51200 of 102400 bytes"},
		{"a wrong digest", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(hdrLength, fmt.Sprint(n))
			w.Header().Set("Trailer", hdrDigest)
			w.Write(blk.Bytes())
			w.Header().Set(hdrDigest, content.Digest{}.String())
		}), "the sender says"},
		{"another length", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set(hdrLength, "12")
			w.Write([]byte("twelve bytes"))
		}), `is "12" bytes, the task expects 102400`},
	}
	// A map whose source dies reads the block again from the next replica.
	t.Run("the source dies, another replica serves", func(t *testing.T) {
		c := newCluster(t, []int{0, 1, 1}, map[int]http.Handler{0: cutBlock(blk.Bytes(), n/3)})
		if _, err := WriteBlock(c.ws[2].store.dir, 0, 0, k, n); err != nil {
			t.Fatal(err)
		}
		l := &wire.Launch{Attempt: wire.Attempt{Job: 0, Kind: wire.Map, Task: 0, Attempt: 1},
			Map: &wire.MapTask{Source: 0, Others: []int{2}, InputBytes: n, Partitions: []int64{10}}}
		sent := capture(c.ws[1])
		if err := c.ws[1].runMap(context.Background(), l, nil); err != nil {
			t.Fatalf("a map whose source died with another replica alive: %v; want it to read the other", err)
		}
		rc := recoveries(t, sent)
		if len(rc) != 1 || rc[0].What != wire.OtherReplica || rc[0].Node != 0 || rc[0].Attempt != l.Attempt {
			t.Errorf("recoveries reported: %+v; want one other_replica without node 0 for %s, so testbed.json lists the move", rc, l.Attempt)
		}
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fakes := map[int]http.Handler{}
			if tc.fake != nil {
				fakes[0] = tc.fake
			}
			c := newCluster(t, []int{0, 1}, fakes)
			if _, err := WriteBlock(c.ws[0].store.dir, 0, 0, k, n); err != nil {
				t.Fatal(err)
			}
			l := &wire.Launch{Attempt: wire.Attempt{Job: 0, Kind: wire.Map, Task: 0, Attempt: 1},
				Map: &wire.MapTask{Source: 0, InputBytes: n, Partitions: []int64{10, 20}}}
			err := c.ws[1].runMap(context.Background(), l, nil)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("remote map: %v", err)
				}
				in := digestOf(blk.Bytes())
				for r, size := range []int64{10, 20} {
					_, p, err := c.ws[1].store.Output(0, 0, r)
					if err != nil || p.Digest != content.Of(content.PartitionKey(in, r), size) {
						t.Errorf("partition %d: %+v, %v; want the stream keyed by the input's digest", r, p, err)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("remote map: %v; want an error saying %q", err, tc.want)
			}
		})
	}
}

// capture makes w's messages to the master readable by recoveries.
func capture(w *Worker) *bytes.Buffer {
	var b bytes.Buffer
	w.conn = wire.NewConn(strings.NewReader(""), &b, "test")
	return &b
}

// recoveries reads back the Recovered messages a worker sent.
func recoveries(t *testing.T, sent *bytes.Buffer) []wire.Recovered {
	t.Helper()
	c := wire.NewConn(bytes.NewReader(sent.Bytes()), io.Discard, "test")
	var out []wire.Recovered
	for {
		m, err := c.Recv()
		if err != nil {
			return out
		}
		if m.Recovered != nil {
			out = append(out, *m.Recovered)
		}
	}
}

// TestPipelineDropsADeadNodeAndSaysSo writes a reduce's output through a
// pipeline whose last node is gone: the output goes through the others,
// and the drop is reported, as HDFS's DataStreamer recovers a pipeline.
func TestPipelineDropsADeadNodeAndSaysSo(t *testing.T) {
	const n = 300 << 10
	k := content.Key{9}
	tests := []struct {
		name     string
		fakes    map[int]http.Handler
		pipeline []int
		want     []int // the nodes that took the output
		dropped  []int
	}{
		{"every node alive", nil, []int{1, 2}, []int{1, 2}, nil},
		{"the last node gone", map[int]http.Handler{2: goneNode}, []int{1, 2}, []int{1}, []int{2}},
		{"the first node gone", map[int]http.Handler{1: goneNode}, []int{1, 2}, []int{2}, []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t, []int{0, 1, 1}, tc.fakes)
			sent := capture(c.ws[0])
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			a := wire.Attempt{Job: 3, Kind: wire.Reduce, Task: 0, Attempt: 1}
			d, took, err := c.ws[0].writeThrough(ctx, a, k, n, tc.pipeline)
			if err != nil || d != content.Of(k, n) || !slices.Equal(took, tc.want) {
				t.Fatalf("writeThrough: %s through %v, %v; want %s through %v", d, took, err, content.Of(k, n), tc.want)
			}
			var dropped []int
			for _, rc := range recoveries(t, sent) {
				if rc.What != wire.PipelineDrop || rc.Attempt != a {
					t.Errorf("recovery %+v; want pipeline_drop for %s", rc, a)
				}
				dropped = append(dropped, rc.Node)
			}
			if !slices.Equal(dropped, tc.dropped) {
				t.Errorf("dropped nodes reported: %v; want %v, each drop listed in testbed.json", dropped, tc.dropped)
			}
		})
	}
}

// TestPipelineWritesEveryReplicaOrSaysWhyNot writes a reduce's output
// through a three-node pipeline, and through pipelines whose downstream
// node fails or stores other bytes.
func TestPipelineWritesEveryReplicaOrSaysWhyNot(t *testing.T) {
	const n = 300 << 10
	k := content.Key{7}
	tests := []struct {
		name string
		fake http.Handler // what node 2, the pipeline's last, serves
		want string
	}{
		{"three live nodes", nil, ""},
		{"the last node is gone", goneNode, "node 2 unreachable"},
		{"the last node refuses", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "disk full", http.StatusInsufficientStorage)
		}), "pipeline to node 2: 507 Insufficient Storage: disk full"},
		{"the last node stores other bytes", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set(hdrDigest, content.Digest{1}.String())
		}), "has digest"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fakes := map[int]http.Handler{}
			if tc.fake != nil {
				fakes[2] = tc.fake
			}
			c := newCluster(t, []int{0, 1, 1}, fakes)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			d, err := c.ws[0].replicate(ctx, 3, 0, content.Stream(k, n), n, []int{1, 2})
			if tc.want == "" {
				if err != nil || d != content.Of(k, n) {
					t.Fatalf("replicate: %s, %v; want %s", d, err, content.Of(k, n))
				}
				for i, w := range c.ws {
					b, err := os.ReadFile(w.store.outputPath(3, 0))
					if err != nil || digestOf(b) != d {
						t.Errorf("node %d's replica: %d bytes, %v; want the output", i, len(b), err)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("replicate: %v; want an error saying %q", err, tc.want)
			}
		})
	}
}
