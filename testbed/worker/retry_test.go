package worker

import (
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mrsched/mrsched/testbed/wire"
)

// TestFetcherRetriesALiveHost breaks the first fetches from a live node in
// the ways a network does (a reset, a cut body) and checks that the reduce
// retries that node and completes with every partition: a failed fetch is
// not that node's death, and nothing else would announce its output again.
// (The fetcher used to drop such outputs and wait for an announcement that
// never came: the reduce held its slot until the run's stall bound.)
func TestFetcherRetriesALiveHost(t *testing.T) {
	part := []byte(strings.Repeat("shuffle bytes ", 1000))
	reset := func(w http.ResponseWriter) {
		hj, _ := w.(http.Hijacker)
		conn, _, _ := hj.Hijack()
		if tc, ok := conn.(*net.TCPConn); ok {
			tc.SetLinger(0) // close with a reset, as `ss -K` does
		}
		conn.Close()
	}
	tests := []struct {
		name  string
		fails int // the first fails requests break
		how   func(w http.ResponseWriter)
	}{
		{"one reset", 1, reset},
		{"three resets", 3, reset},
		{"a server that stalls past the read timeout", 1, func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "100000")
			w.WriteHeader(http.StatusOK)
			time.Sleep(2 * time.Second) // the fetch's read timeout is 0.3 s
		}},
		{"a body cut short", 2, func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", "100000")
			w.Write(frame(1, part, digestOf(part))[:frameHeader+100])
			reset(w)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var served atomic.Int32
			var real http.Handler
			fake := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if served.Add(1) <= int32(tc.fails) {
					tc.how(w)
					return
				}
				real.ServeHTTP(w, r)
			})
			c := newCluster(t, []int{0, 1, 1}, map[int]http.Handler{1: fake})
			real = c.ws[1].routes()
			fastRetries(c)
			msgs := messages(t, c.ws[2])
			f := threeMapFetch(t, c, part)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ds, n, err := f.run(ctx)
			if err != nil || n != 3*int64(len(part)) {
				t.Fatalf("fetch: %d bytes, %v; want all %d bytes: node 1 is alive and serves after %d failed fetches", n, err, 3*len(part), tc.fails)
			}
			for m, d := range ds {
				if d != digestOf(part) {
					t.Errorf("map %d's partition digest %s, want %s", m, d, digestOf(part))
				}
			}
			reports := 0
			for len(msgs) > 0 {
				if m := <-msgs; m.FetchFailed != nil {
					reports++
					if m.FetchFailed.Node != 1 {
						t.Errorf("a fetch failure names node %d; only node 1 failed", m.FetchFailed.Node)
					}
				}
			}
			if reports != tc.fails {
				t.Errorf("%d fetch failures reported to the master, want %d (one a failed fetch, as a Hadoop reduce reports them)", reports, tc.fails)
			}
		})
	}
}

// fastRetries makes the fetchers back off for tens of milliseconds, not
// Hadoop's 10 s, and time out after 0.3 s, not 180 s.
func fastRetries(c *testCluster) {
	for _, w := range c.ws {
		w.timeouts.PenaltyS, w.timeouts.MaxPenaltyS = 0.05, 0.2
		w.shuffle = peerClient(nil, 300*time.Millisecond, 300*time.Millisecond, &w.moved)
	}
}

// TestStatusSaysWhatAReduceWaitsOn checks the lines a worker gives the
// master's stall diagnosis: a shuffling reduce names the maps not yet
// announced, the host it backs off from and until when, and the last
// failure.
func TestStatusSaysWhatAReduceWaitsOn(t *testing.T) {
	c := newCluster(t, []int{0, 1, 1}, map[int]http.Handler{1: goneNode})
	w := c.ws[2]
	for _, x := range c.ws {
		x.timeouts.PenaltyS, x.timeouts.MaxPenaltyS = 30, 60 // it stays backing off
	}
	messages(t, w)
	a := wire.Attempt{Job: 0, Kind: wire.Reduce, Task: 1, Attempt: 1}
	f := newFetcher(w, a, 3, 2)
	w.phases[a] = &phase{what: "shuffling", since: time.Now(), fetch: f}
	f.add([]wire.MapOutput{{Map: 1, Node: 1, RunS: 100}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, _, err := f.run(ctx); done <- err }()
	defer func() { cancel(); <-done }()
	var line string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if st := w.status(); len(st) == 1 && strings.Contains(st[0], "backing off") {
			line = st[0]
			break
		}
	}
	for _, want := range []string{"job 0 reduce 1 attempt 1: shuffling since", "copied 0 of 3",
		"waiting for the announcement of maps [0 2]", "maps [1] on node 1 (backing off until", "1 failed fetches, the last:"} {
		if !strings.Contains(line, want) {
			t.Errorf("status %q does not say %q", line, want)
		}
	}
}
