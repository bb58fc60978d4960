package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestMessagesRoundTrip(t *testing.T) {
	msgs := []Msg{
		{Setup: &Setup{Node: 1, Addrs: []string{"a:1", "b:1"}, Racks: []int{0, 1}, Dir: "/d", DiskBytesPerSec: 4e7, HeartbeatS: 0.3, PhaseS: 0.15}},
		{Start: &Start{EpochUnixNano: 42}},
		{Launch: &Launch{Attempt: Attempt{Job: 3, Kind: Map, Task: 2, Attempt: 1}, Seed: 9, JobName: "job3", BytesPerSec: 1e6, Map: &MapTask{Source: 1, InputBytes: 100, Partitions: []int64{5, 6}}}},
		{Launch: &Launch{Attempt: Attempt{Job: 3, Kind: Reduce, Task: 0, Attempt: 2}, Reduce: &ReduceTask{Maps: 2, ParallelCopies: 5, OutputBytes: 7, Pipeline: []int{1, 0}, Ready: []MapOutput{{Map: 1, Node: 0}}}}},
		{Kill: &Attempt{Job: 3, Kind: Reduce, Task: 0, Attempt: 2}},
		{MapOutputs: &MapOutputs{Job: 3, Outputs: []MapOutput{{Map: 0, Node: 1}}}},
		{Heartbeat: &Heartbeat{Node: 1, Ended: []Ended{{Attempt: Attempt{Job: 3, Kind: Map, Task: 2, Attempt: 1}}, {Attempt: Attempt{Job: 3, Kind: Reduce}, Err: "fetch failed"}}}},
		{Copied: &Attempt{Job: 3, Kind: Reduce, Task: 0, Attempt: 2}},
		{Transfers: []Transfer{{Job: 3, Cause: Shuffle, Bytes: 11, CrossRack: true}}},
		{Ready: &Ready{Node: 1}},
		{Shutdown: &Shutdown{}},
		{Fatal: "disk gone"},
	}
	var buf bytes.Buffer
	c := NewConn(&buf, &buf, "peer")
	for _, m := range msgs {
		if err := c.Send(m); err != nil {
			t.Fatalf("Send(%+v): %v", m, err)
		}
	}
	for i, want := range msgs {
		got, err := c.Recv()
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		var a, b bytes.Buffer
		NewConn(nil, &a, "").Send(got)
		NewConn(nil, &b, "").Send(want)
		if a.String() != b.String() {
			t.Errorf("message %d came back as %s, want %s", i, a.String(), b.String())
		}
	}
	if _, err := c.Recv(); !errors.Is(err, ErrClosed) {
		t.Errorf("Recv at the end of the stream: %v, want ErrClosed", err)
	}
}

func TestBadMessagesNameThePeer(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
	}{
		{"no part", "{}\n", "carries 0 parts"},
		{"two parts", `{"ready":{"node":1},"shutdown":{}}` + "\n", "carries 2 parts"},
		{"not JSON", "hello\n", "bad message from node 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewConn(strings.NewReader(tc.line), io.Discard, "node 7").Recv()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Recv(%q): %v; want an error saying %q", tc.line, err, tc.want)
			}
		})
	}
	if err := NewConn(nil, io.Discard, "x").Send(Msg{}); err == nil {
		t.Error("Send of an empty message succeeded; a message carries exactly one part")
	}
}
