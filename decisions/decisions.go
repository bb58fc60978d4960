// Package decisions is the decisions log of a run: one record for every
// task launch, with the offer it answered, the jobs the policy considered
// for it in the order it considered them, the rule that fired and, for
// every job passed over, why. It is written as gzip-compressed JSON
// lines, one record a line, in the order the launches happened; the
// schema is Record's, documented in docs/time.md.
package decisions

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// Record is one launch.
type Record struct {
	// T is the simulated time of the launch, seconds.
	T float64 `json:"t"`
	// Node is the offered node's name and Slot the offered slot's kind
	// ("map", "reduce", "container").
	Node string `json:"node"`
	Slot string `json:"slot"`
	// Job is the launched task's job (jobs.csv's id), Task its kind
	// ("map", "reduce") and Map the map's index (-1 for a reduce).
	Job  int    `json:"job"`
	Task string `json:"task"`
	Map  int    `json:"map"`
	// Rule is the policy's rule that fired (summary.json's decisions).
	Rule string `json:"rule"`
	// Reach is a map's input's distance ("node", "rack", "off"); empty
	// for a reduce.
	Reach string `json:"reach,omitempty"`
	// Considered are the jobs the policy's order yielded for the offer,
	// in that order, up to and including the launched one; absent for a
	// policy that has no single order (TD walks its status sets).
	Considered []int `json:"considered,omitempty"`
	// MoreConsidered counts the considered jobs past the first 64, which
	// are not listed.
	MoreConsidered int `json:"more_considered,omitempty"`
	// Passed says, for each considered job not launched (up to 64), why.
	Passed []Pass `json:"passed,omitempty"`
	// MorePassed counts the jobs passed over past those listed.
	MorePassed int `json:"more_passed,omitempty"`
}

// Pass is a job passed over for an offer, and why.
type Pass struct {
	Job int    `json:"job"`
	Why string `json:"why"`
}

// Writer writes a decisions log.
type Writer struct {
	f   *os.File
	buf *bufio.Writer
	gz  *gzip.Writer
	enc *json.Encoder
	err error
	n   int64
}

// Create starts a decisions log at path.
func Create(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{f: f, buf: bufio.NewWriterSize(f, 1<<16)}
	w.gz = gzip.NewWriter(w.buf)
	w.enc = json.NewEncoder(w.gz)
	return w, nil
}

// Write appends r; the first error is kept and returned by Close.
func (w *Writer) Write(r *Record) {
	if w.err == nil {
		w.err = w.enc.Encode(r)
		w.n++
	}
}

// Records counts the records written.
func (w *Writer) Records() int64 { return w.n }

// Close ends the log and closes its file.
func (w *Writer) Close() error {
	err := w.err
	for _, f := range []func() error{w.gz.Close, w.buf.Flush, w.f.Close} {
		if e := f(); err == nil {
			err = e
		}
	}
	if err != nil {
		return fmt.Errorf("decisions log %s: %w", w.f.Name(), err)
	}
	return nil
}

// Read calls f for each record of the log at path, in order, until f
// returns false; an error names the file and the line.
func Read(path string, f func(*Record) bool) error {
	file, err := os.Open(path)
	if err != nil {
		return err
	}
	defer file.Close()
	gz, err := gzip.NewReader(bufio.NewReader(file))
	if err != nil {
		return fmt.Errorf("%s: not a gzip-compressed decisions log: %w", path, err)
	}
	dec := json.NewDecoder(gz)
	dec.DisallowUnknownFields()
	for line := 1; ; line++ {
		var r Record
		if err := dec.Decode(&r); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("%s: record %d: %w", path, line, err)
		}
		if !f(&r) {
			return nil
		}
	}
}
