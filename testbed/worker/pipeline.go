package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/pace"
)

// replicate writes n bytes from src as reduce r of job's output replica on
// this node and, at the same time, sends them on to the rest of the
// pipeline (next[0], which forwards to next[1], ...), as an HDFS datanode
// writes a packet and forwards it. It returns the digest of the bytes once
// every replica down the pipeline has confirmed the same digest. The
// pipeline moves at its slowest stage: each stage holds at most a few
// chunks in flight.
func (w *Worker) replicate(ctx context.Context, job, r int, src io.Reader, n int64, next []int) (content.Digest, error) {
	f, err := os.Create(w.store.outputPath(job, r))
	if err != nil {
		return content.Digest{}, err
	}
	defer f.Close()
	sinks := []io.Writer{pace.NewWriter(ctx, f, w.disk)}
	var down chan result
	var pw *io.PipeWriter
	if len(next) > 0 {
		var pr *io.PipeReader
		pr, pw = io.Pipe()
		down = make(chan result, 1)
		go func() {
			d, err := w.forward(ctx, job, r, pr, n, next)
			pr.CloseWithError(err) // unblocks the tee if the downstream failed early
			down <- result{d, err}
		}()
		sinks = append(sinks, pw)
	}
	h := content.NewHasher()
	got, sinkErrs, readErr := fanOut(io.TeeReader(src, h), sinks...)
	// The local replica's error, or the source's, is this stage's own; a
	// failed write into the downstream pipe is a symptom of the
	// downstream's error, reported below.
	err = cmp.Or(readErr, sinkErrs[0])
	if pw != nil {
		pw.CloseWithError(err)
	}
	if err == nil && got != n {
		err = fmt.Errorf("replica of reduce %d of job %d: got %d bytes, want %d", r, job, got, n)
	}
	if err == nil {
		err = f.Sync()
	}
	d := h.Sum()
	if down != nil {
		res := <-down
		switch {
		case err == nil && res.err != nil:
			err = res.err
		case err == nil && len(sinkErrs) > 1 && sinkErrs[1] != nil:
			err = fmt.Errorf("pipeline to node %d: %w", next[0], sinkErrs[1])
		}
		if err == nil && res.d != d {
			err = fmt.Errorf("replica of reduce %d of job %d at node %d has digest %s, this node wrote %s", r, job, next[0], res.d, d)
		}
	}
	return d, err
}

type result struct {
	d   content.Digest
	err error
}

// forward posts the bytes read from body to node next[0] with the rest of
// the pipeline, and returns the digest that node reports.
func (w *Worker) forward(ctx context.Context, job, r int, body io.Reader, n int64, next []int) (content.Digest, error) {
	rest := make([]string, len(next)-1)
	for i, x := range next[1:] {
		rest[i] = strconv.Itoa(x)
	}
	url := fmt.Sprintf("http://%s/pipeline/%d/%d?next=%s", w.setup.Addrs[next[0]], job, r, strings.Join(rest, ","))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, body)
	if err != nil {
		return content.Digest{}, err
	}
	req.ContentLength = n
	req.Header.Set(hdrLength, strconv.FormatInt(n, 10))
	req.Header.Set("Expect", "100-continue") // see peerClient
	resp, err := w.client.Do(req)
	if err != nil {
		return content.Digest{}, asPeerError(next[0], fmt.Errorf("pipeline to node %d: %w", next[0], err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		err := fmt.Errorf("pipeline to node %d: %s: %s", next[0], resp.Status, strings.TrimSpace(string(msg)))
		// A node further down that died is named by the node before it.
		if x, perr := strconv.Atoi(resp.Header.Get(hdrFailedNode)); perr == nil {
			return content.Digest{}, &peerError{node: x, err: err}
		}
		return content.Digest{}, err
	}
	d, err := content.ParseDigest(resp.Header.Get(hdrDigest))
	if err != nil {
		return content.Digest{}, fmt.Errorf("pipeline to node %d: %w", next[0], err)
	}
	return d, nil
}

// fanOut copies src to every sink concurrently, chunk by chunk, each sink
// at most a few chunks behind the reader, and returns the bytes copied,
// each sink's error and the source's.
func fanOut(src io.Reader, sinks ...io.Writer) (int64, []error, error) {
	const depth = 4
	chans := make([]chan []byte, len(sinks))
	errs := make([]error, len(sinks))
	var wg sync.WaitGroup
	for i, s := range sinks {
		chans[i] = make(chan []byte, depth)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range chans[i] {
				if errs[i] == nil {
					_, errs[i] = s.Write(b)
				}
			}
		}()
	}
	var total int64
	var rerr error
	for {
		b := make([]byte, pace.Chunk)
		k, err := io.ReadFull(src, b)
		if k > 0 {
			total += int64(k)
			for _, c := range chans {
				c <- b[:k]
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			rerr = err
			break
		}
	}
	for _, c := range chans {
		close(c)
	}
	wg.Wait()
	return total, errs, rerr
}
