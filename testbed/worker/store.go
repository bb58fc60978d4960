package worker

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/mrsched/mrsched/cluster"
	"github.com/mrsched/mrsched/sched"
	"github.com/mrsched/mrsched/testbed/content"
	"github.com/mrsched/mrsched/workload"
)

// Store is a node's local storage: the input block replicas HDFS placed on
// it, and the map outputs its maps wrote. Blocks are files written before
// the run (WriteBlock); map outputs are one file a map holding its
// partitions back to back, with an index kept in memory, as a Hadoop map
// writes file.out and file.out.index.
type Store struct {
	dir string

	mu   sync.Mutex
	outs map[outKey][]Partition
}

type outKey struct{ job, m int }

// Partition locates one reduce's part of a map output in its file.
type Partition struct {
	Off, Len int64
	Digest   content.Digest
}

// NewStore opens (creating) the store under dir.
func NewStore(dir string) (*Store, error) {
	for _, d := range []string{"blocks", "mapout"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return nil, err
		}
	}
	return &Store{dir: dir, outs: map[outKey][]Partition{}}, nil
}

// BlockPath is where block i of job lives in the store under dir.
func BlockPath(dir string, job, i int) string {
	return filepath.Join(dir, "blocks", strconv.Itoa(job)+"-"+strconv.Itoa(i))
}

// WriteBlock generates block i of a job into the store under dir: what
// HDFS would hold there before the run. It returns the block's digest.
func WriteBlock(dir string, job, i int, k content.Key, n int64) (content.Digest, error) {
	path := BlockPath(dir, job, i)
	f, err := os.Create(path)
	if err != nil {
		return content.Digest{}, err
	}
	h := content.NewHasher()
	if _, err := io.Copy(io.MultiWriter(f, h), content.Stream(k, n)); err != nil {
		f.Close()
		return content.Digest{}, fmt.Errorf("writing block %s: %w", path, err)
	}
	return h.Sum(), f.Close()
}

// OpenBlock opens block i of job, with its length.
func (s *Store) OpenBlock(job, i int) (*os.File, int64, error) {
	f, err := os.Open(BlockPath(s.dir, job, i))
	if err != nil {
		return nil, 0, fmt.Errorf("block %d of job %d is not stored on this node: %w", i, job, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

func (s *Store) outPath(job, m int) string {
	return filepath.Join(s.dir, "mapout", strconv.Itoa(job)+"-"+strconv.Itoa(m)+".out")
}

// CreateOutput opens a temporary file for map m of job's output; Commit
// makes it visible.
func (s *Store) CreateOutput(job, m int) (*os.File, error) {
	return os.CreateTemp(filepath.Join(s.dir, "mapout"), fmt.Sprintf("%d-%d-*.tmp", job, m))
}

// Commit renames a finished output file into place and indexes its
// partitions, replacing any earlier attempt's (whose bytes were the same).
func (s *Store) Commit(tmp *os.File, job, m int, parts []Partition) error {
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), s.outPath(job, m)); err != nil {
		return err
	}
	s.mu.Lock()
	s.outs[outKey{job, m}] = parts
	s.mu.Unlock()
	return nil
}

// Output returns map m of job's partition for reduce r and the open file
// holding it.
func (s *Store) Output(job, m, r int) (*os.File, Partition, error) {
	s.mu.Lock()
	parts, ok := s.outs[outKey{job, m}]
	s.mu.Unlock()
	if !ok {
		return nil, Partition{}, fmt.Errorf("no output of map %d of job %d on this node", m, job)
	}
	if r < 0 || r >= len(parts) {
		return nil, Partition{}, fmt.Errorf("map %d of job %d has %d partitions, not %d", m, job, len(parts), r+1)
	}
	f, err := os.Open(s.outPath(job, m))
	if err != nil {
		return nil, Partition{}, err
	}
	return f, parts[r], nil
}

// DropJob removes a finished job's map outputs, as a TaskTracker does
// when the job completes.
func (s *Store) DropJob(job int, maps int) {
	s.mu.Lock()
	for m := range maps {
		if _, ok := s.outs[outKey{job, m}]; ok {
			delete(s.outs, outKey{job, m})
			os.Remove(s.outPath(job, m))
		}
	}
	s.mu.Unlock()
}

// outputDir is where pipeline replicas of reduce outputs are written.
func (s *Store) outputPath(job, r int) string {
	return filepath.Join(s.dir, "output-"+strconv.Itoa(job)+"-"+strconv.Itoa(r))
}

// StoreInputs writes every job's input blocks into the store of each node
// that HDFS's placement for the run with this seed puts a replica on
// (sched.InputFile), as the cluster would hold them before the jobs
// run. dir gives each node's store directory. Each block is generated once
// and copied to its other replicas.
func StoreInputs(dir func(node int) string, t *cluster.Topology, jobs []workload.Job, plans []content.Plan, seed uint64) error {
	for d := range t.NumNodes() {
		if _, err := NewStore(dir(d)); err != nil {
			return err
		}
	}
	for i := range jobs {
		j := &jobs[i]
		f := sched.InputFile(t, seed, j)
		for b := range j.NumMaps {
			reps := f.BlockReplicas(b)
			first := dir(int(reps[0]))
			if _, err := WriteBlock(first, j.ID, b, content.BlockKey(seed, j.Name, b), plans[i].Input[b]); err != nil {
				return err
			}
			for _, r := range reps[1:] {
				if err := copyFile(BlockPath(first, j.ID, b), BlockPath(dir(int(r)), j.ID, b)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
