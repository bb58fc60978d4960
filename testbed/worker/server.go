package worker

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/testbed/pace"
)

// The data plane: every worker serves HTTP on its node's address.
//
//	GET  /block/JOB/I              block I of JOB, for a map reading it remotely
//	GET  /shuffle/JOB/R?maps=A,B   reduce R's partitions of maps A, B... (framed)
//	POST /pipeline/JOB/R?next=N,M  a replica of reduce R's output, forwarded on to N, then M
//
// Every byte served or stored passes the node's disk limiter. Lengths and
// digests travel with the bytes (headers, trailers or frame headers), so
// the receiver names a short read or a corrupt transfer precisely.
const (
	hdrLength = "X-Mrsched-Length"
	hdrDigest = "X-Mrsched-Digest"
	// hdrFailedNode names, on a failed pipeline response, the node further
	// down the pipeline that died, so the writer can drop it.
	hdrFailedNode = "X-Mrsched-Failed-Node"
)

// frameHeader precedes each partition in a shuffle response: the map's
// index, the partition's length and its digest.
const frameHeader = 8 + 8 + len(content.Digest{})

func (w *Worker) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /block/{job}/{i}", w.serveBlock)
	mux.HandleFunc("GET /shuffle/{job}/{r}", w.serveShuffle)
	mux.HandleFunc("POST /pipeline/{job}/{r}", w.servePipeline)
	return mux
}

func pathInts(req *http.Request, names ...string) ([]int, error) {
	out := make([]int, len(names))
	for i, n := range names {
		v, err := strconv.Atoi(req.PathValue(n))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad %s %q in %s", n, req.PathValue(n), req.URL.Path)
		}
		out[i] = v
	}
	return out, nil
}

func intList(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	out := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("bad list entry %q", p)
		}
		out[i] = v
	}
	return out, nil
}

func (w *Worker) serveBlock(rw http.ResponseWriter, req *http.Request) {
	v, err := pathInts(req, "job", "i")
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	f, n, err := w.store.OpenBlock(v[0], v[1])
	if err != nil {
		http.Error(rw, err.Error(), http.StatusNotFound)
		return
	}
	defer f.Close()
	rw.Header().Set(hdrLength, strconv.FormatInt(n, 10))
	rw.Header().Set("Trailer", hdrDigest)
	h := content.NewHasher()
	if _, err := io.Copy(io.MultiWriter(rw, h), pace.NewReader(req.Context(), f, w.disk)); err != nil {
		return // the reader sees a short body
	}
	rw.Header().Set(hdrDigest, h.Sum().String())
}

func (w *Worker) serveShuffle(rw http.ResponseWriter, req *http.Request) {
	v, err := pathInts(req, "job", "r")
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	maps, err := intList(req.URL.Query().Get("maps"))
	if err != nil || len(maps) == 0 {
		http.Error(rw, fmt.Sprintf("maps: want a comma-separated list of map indexes (%v)", err), http.StatusBadRequest)
		return
	}
	job, r := v[0], v[1]
	// Check every partition is here before sending any byte, so a missing
	// one is a clear error rather than a truncated stream.
	type part struct {
		m int
		p Partition
	}
	parts := make([]part, len(maps))
	var total int64
	for i, m := range maps {
		f, p, err := w.store.Output(job, m, r)
		if err != nil {
			http.Error(rw, err.Error(), http.StatusNotFound)
			return
		}
		f.Close()
		parts[i] = part{m, p}
		total += int64(frameHeader) + p.Len
	}
	rw.Header().Set("Content-Length", strconv.FormatInt(total, 10))
	for _, pt := range parts {
		var hdr [frameHeader]byte
		binary.BigEndian.PutUint64(hdr[0:], uint64(pt.m))
		binary.BigEndian.PutUint64(hdr[8:], uint64(pt.p.Len))
		copy(hdr[16:], pt.p.Digest[:])
		if _, err := rw.Write(hdr[:]); err != nil {
			return
		}
		f, p, err := w.store.Output(job, pt.m, r)
		if err != nil {
			return // the output vanished (its job ended): the fetcher sees a short body
		}
		_, err = io.Copy(rw, pace.NewReader(req.Context(), io.NewSectionReader(f, p.Off, p.Len), w.disk))
		f.Close()
		if err != nil {
			return
		}
	}
}

func (w *Worker) servePipeline(rw http.ResponseWriter, req *http.Request) {
	v, err := pathInts(req, "job", "r")
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	next, err := intList(req.URL.Query().Get("next"))
	if err == nil {
		for _, n := range next {
			if n >= len(w.setup.Addrs) {
				err = fmt.Errorf("no node %d", n)
			}
		}
	}
	if err != nil {
		http.Error(rw, "next: "+err.Error(), http.StatusBadRequest)
		return
	}
	n, err := strconv.ParseInt(req.Header.Get(hdrLength), 10, 64)
	if err != nil || n < 0 {
		http.Error(rw, hdrLength+": want the replica's length", http.StatusBadRequest)
		return
	}
	d, err := w.replicate(req.Context(), v[0], v[1], io.LimitReader(req.Body, n), n, next)
	if err == nil {
		// Drain: a body longer than announced is an error too.
		if extra, _ := io.Copy(io.Discard, req.Body); extra > 0 {
			err = fmt.Errorf("the body is %d bytes longer than its %s %d", extra, hdrLength, n)
		}
	}
	if err != nil {
		status := http.StatusBadGateway
		if errors.Is(err, context.Canceled) {
			status = http.StatusServiceUnavailable
		}
		if n, dead := deadNode(err); dead {
			rw.Header().Set(hdrFailedNode, strconv.Itoa(n))
		}
		// Take the rest of the replica before answering: a node that
		// answers and closes while the writer still sends resets the
		// connection, and the writer would read this node as dead and
		// lose the reason (and the failed node named above).
		io.Copy(io.Discard, req.Body)
		http.Error(rw, err.Error(), status)
		return
	}
	rw.Header().Set(hdrDigest, d.String())
	rw.WriteHeader(http.StatusOK)
}
