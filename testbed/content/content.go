// Package content defines the bytes a testbed job reads, shuffles and
// writes, as pure functions of the scenario, so that every job's output is
// known before it runs and a run can be checked byte for byte.
//
// A job's input block is a stream generated from a key derived from the
// scenario's seed, the job's name and the block's index. A map digests its
// block (SHA-256) as it reads it, and its output partition for reduce r is a
// stream keyed by that digest and r: output is a function of the input
// actually read, so a map that read the wrong bytes writes the wrong output.
// A reduce digests each partition it fetched, and its output is a stream
// keyed by those digests in map order. A job's checksum is the digest of its
// reduce outputs' digests in reduce order. Expected computes it without any
// I/O, from the plan alone.
//
// Streams are ChaCha8 keystreams: fast enough (GB/s) that generating data
// never competes with the emulated links for the host's CPU.
package content

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"math/rand/v2"
)

// Digest is a SHA-256 digest.
type Digest [sha256.Size]byte

// String is the digest in hex, as testbed.json records checksums.
func (d Digest) String() string { return hex.EncodeToString(d[:]) }

// ParseDigest reads a digest written by String.
func ParseDigest(s string) (Digest, error) {
	var d Digest
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(d) {
		return d, fmt.Errorf("content: %q is not a SHA-256 digest in hex", s)
	}
	copy(d[:], b)
	return d, nil
}

// Key seeds one generated stream.
type Key [32]byte

// derive hashes a domain tag and parts into a key, so that keys of
// different kinds never coincide.
func derive(tag string, parts ...[]byte) Key {
	h := sha256.New()
	h.Write([]byte(tag))
	for _, p := range parts {
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(p)))
		h.Write(n[:])
		h.Write(p)
	}
	var k Key
	copy(k[:], h.Sum(nil))
	return k
}

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// BlockKey is the key of input block i of the job named job in a run with
// this seed.
func BlockKey(seed uint64, job string, i int) Key {
	return derive("mrsched block", u64(seed), []byte(job), u64(uint64(i)))
}

// PartitionKey is the key of the output a map whose input digested to in
// writes for reduce r.
func PartitionKey(in Digest, r int) Key {
	return derive("mrsched partition", in[:], u64(uint64(r)))
}

// OutputKey is the key of a reduce's output, from the digests of the
// partitions it fetched in map order.
func OutputKey(parts []Digest) Key {
	flat := make([]byte, 0, len(parts)*len(Digest{}))
	for _, p := range parts {
		flat = append(flat, p[:]...)
	}
	return derive("mrsched output", flat)
}

// JobChecksum is a job's checksum: the digest of its reduces' output
// digests in reduce order.
func JobChecksum(outputs []Digest) Digest {
	h := sha256.New()
	for _, o := range outputs {
		h.Write(o[:])
	}
	var d Digest
	copy(d[:], h.Sum(nil))
	return d
}

// Stream returns a reader of the n bytes keyed by k.
func Stream(k Key, n int64) io.Reader {
	return io.LimitReader(rand.NewChaCha8(k), n)
}

// Hasher digests bytes as they pass; its Sum is a Digest.
type Hasher struct{ h hash.Hash }

// NewHasher returns an empty Hasher.
func NewHasher() *Hasher { return &Hasher{h: sha256.New()} }

// Write adds p to the digest.
func (h *Hasher) Write(p []byte) (int, error) { return h.h.Write(p) }

// Sum is the digest of everything written.
func (h *Hasher) Sum() Digest {
	var d Digest
	copy(d[:], h.h.Sum(nil))
	return d
}

// Of digests the n bytes keyed by k.
func Of(k Key, n int64) Digest {
	h := NewHasher()
	if _, err := io.Copy(h, Stream(k, n)); err != nil {
		panic(err) // a keystream and a hash cannot fail
	}
	return h.Sum()
}
