package scenario

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mrsched/mrsched/traces"
)

// WorkloadFingerprint identifies the work a scenario gives its cluster,
// apart from the seed: the trace's bytes (not its path, so a copied trace
// keeps its fingerprint) or the generator, every workload setting, and the
// cluster after defaults (its size scales the trace's bytes). Runs with
// one fingerprint and different seeds or policies are draws of one
// experiment, whose results may be averaged and compared; runs with
// different fingerprints are not. It is "sha256:" and 16 hex digits.
func (c *Config) WorkloadFingerprint() (string, error) {
	w := c.Workload
	var trace string
	if w.Trace != "" {
		data, _, ok := traces.Embedded(w.Trace)
		if !ok {
			path := w.Trace
			if !filepath.IsAbs(path) && c.dir != "" {
				path = filepath.Join(c.dir, path)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return "", fmt.Errorf("workload.trace: %w", err)
			}
			data = b
		}
		sum := sha256.Sum256(data)
		trace = hex.EncodeToString(sum[:])
	}
	demand := func(v DemandValue) *int {
		if v.Line == 0 && v.N == 0 {
			return nil
		}
		return &v.N
	}
	byName := func(m map[string]DemandValue) map[string]int {
		out := map[string]int{}
		for k, v := range m {
			out[k] = v.N
		}
		return out
	}
	w.Trace = ""
	d := w.Demand
	w.Demand = DemandSpec{}
	b, err := json.Marshal(struct {
		TraceSHA256   string
		Workload      Workload
		DemandDefault *int
		DemandByKind  map[string]int
		DemandByJob   map[string]int
		Cluster       any
	}{trace, w, demand(d.Default), byName(d.ByKind), byName(d.ByJob), c.Cluster.WithDefaults()})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:8]), nil
}
