package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mrsched/mrsched"
	"github.com/mrsched/mrsched/traces"
)

// Keeping runs on disk (Options.KeepDir). An experiment of the unscaled
// FB-2010 day runs for hours; held only in memory, a stopped run of it
// lost every simulation it had finished. With a keep directory each
// finished simulation is written there at once, and the next invocation
// reads it back instead of running it again: a stopped experiment resumes.
//
// A kept run is the run only for the source that made it: the policies
// and the engine change between commits while the keys (set-up, policy
// label, users, seed) do not. Each file therefore records the build (a
// hash of the Go source of the packages the result depends on, embedded
// in the binary: buildID) and its key in full; a file from another
// source, or whose key does not match, is ignored and the run made again.
// The hash is of the source, not of the executable, so that a commit that
// changes only docs, tests or another command keeps the runs, and a
// rebuild with another toolchain or flags does too.

// A cache's runs are kept as gob, a file a run named <kind>-<hash of the
// key>.gob (Cache.Keep is the kind); gob sees exported fields alone, so
// a kept run's type exports every field it keeps.

// keptHeader opens every kept file: the build that made it and the key in
// full, so that neither a hash collision nor a rebuilt binary can hand
// back the wrong run.
type keptHeader struct {
	Build, Key string
}

// keepPath is where a run of kind with key is kept.
func keepPath(dir, kind, key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, kind+"-"+hex.EncodeToString(sum[:8])+".gob")
}

// loadKept reads the run with key from dir; ok is false when there is none
// made by this build. A file that cannot be read as one is an error: it
// is in the directory the user named, and running over it silently would
// hide a disk or a permissions problem.
func loadKept[V any](dir, kind, key string) (v V, ok bool, err error) {
	path := keepPath(dir, kind, key)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return v, false, nil
	}
	if err != nil {
		return v, false, fmt.Errorf("keep directory: %w", err)
	}
	build, err := buildID()
	if err != nil {
		return v, false, err
	}
	dec := gob.NewDecoder(bytes.NewReader(data))
	var h keptHeader
	if err := dec.Decode(&h); err != nil {
		return v, false, fmt.Errorf("keep directory: %s: not a kept run (%v); remove it", path, err)
	}
	if h.Build != build || h.Key != key {
		return v, false, nil // another build's run, or another key under the same hash
	}
	if err := dec.Decode(&v); err != nil {
		return v, false, fmt.Errorf("keep directory: %s: %v; remove it", path, err)
	}
	return v, true, nil
}

// storeKept writes the run with key to dir, through a temporary file and a
// rename, so that a run stopped mid-write leaves no half file behind.
func storeKept[V any](dir, kind, key string, v V) error {
	build, err := buildID()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	if err := enc.Encode(keptHeader{Build: build, Key: key}); err != nil {
		return err
	}
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("keeping a run: %w", err)
	}
	path := keepPath(dir, kind, key)
	tmp, err := os.CreateTemp(dir, ".keep-*")
	if err != nil {
		return fmt.Errorf("keep directory: %w", err)
	}
	_, werr := tmp.Write(buf.Bytes())
	merr := tmp.Chmod(0o644) // as every other output: CreateTemp makes it private
	cerr := tmp.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("keep directory: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("keep directory: %w", err)
	}
	return nil
}

var (
	buildOnce sync.Once
	buildSum  string
	buildErr  error
)

// buildID identifies the source this binary was built from: sourceHash of
// the embedded sources (mrsched.Sources), with the embedded traces'
// bytes, which the experiments replay.
func buildID() (string, error) {
	buildOnce.Do(func() {
		sum, err := sourceHash(mrsched.Sources)
		if err != nil {
			buildErr = fmt.Errorf("keep directory: cannot hash this binary's embedded source: %w", err)
			return
		}
		h := sha256.New()
		io.WriteString(h, sum)
		for _, name := range traces.Names() {
			data, _, _ := traces.Embedded(name)
			fmt.Fprintf(h, "\x00trace %s %d\x00", name, len(data))
			h.Write(data)
		}
		buildSum = hex.EncodeToString(h.Sum(nil))
	})
	return buildSum, buildErr
}

// sourceHash hashes the Go files in fsys that go into a build: every
// *.go file but *_test.go, each by its path and its bytes, in the sorted
// order fs.WalkDir visits them, so the same files give the same hash on
// any machine and any change to one, a file added, removed or renamed
// gives another. Other files (docs, test data) are not hashed.
func sourceHash(fsys fs.FS) (string, error) {
	h := sha256.New()
	n := 0
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		data, err := fs.ReadFile(fsys, path)
		if err != nil {
			return err
		}
		// Length-prefixed, so that no two different sets of files
		// can run together into the same bytes.
		fmt.Fprintf(h, "%d:%s%d:", len(path), path, len(data))
		h.Write(data)
		n++
		return nil
	})
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", fmt.Errorf("no Go source among the embedded files")
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
