package main

import (
	"io"
	"testing"
)

// TestWriteupsFastBlocksAreCurrent reruns the commands of every generated
// block of a fast experiment (and of mrsched compare) in README.md,
// docs/*.md and experiment/README-*.md, and every claim on a fast
// experiment, and fails on each block that is not what its command prints
// now and each claim that no longer holds: a change to the engine that
// moves a published number fails here, naming the block and the command
// that rewrites it. Slow experiments' blocks are checked by
// `mrsched experiment -check`.
func TestWriteupsFastBlocksAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("reruns the fast experiments: about a minute on 2 cores")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	problems, p, err := runWriteups(root, writeupScope{fast: true}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range problems {
		t.Error(pr)
	}
	if p.blocks == 0 {
		t.Error("no fast generated block found in the write-ups; the markers' syntax or the file list changed")
	}
	t.Logf("%d fast blocks, %d claims checked; %d slow ones left to mrsched experiment -check", p.blocks, p.claims, p.skipped)
}
