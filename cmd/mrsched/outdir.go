package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// outDir is a command's output directory. A command that fails leaves no
// directory it made (discard), and never writes into one that holds
// another run unless told to (-force).
type outDir struct {
	path string
	// made is set when the command made the directory, so that a failed
	// command removes it again.
	made bool
}

// openOutDir prepares path to receive a run's output. A directory that
// does not exist is made. One that holds files is refused, naming what it
// holds, unless force (then it is emptied first) or resumes says that it
// holds an earlier, unfinished run of the very same command, which the
// command goes on with. flagName names the flag in errors.
func openOutDir(flagName, path string, force bool, resumes func(dir string) bool) (*outDir, error) {
	o := &outDir{path: path}
	entries, err := os.ReadDir(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := writableDir(path); err != nil {
			return nil, fmt.Errorf("%s %s: %w", flagName, path, err)
		}
		o.made = true
		return o, nil
	case err != nil:
		return nil, fmt.Errorf("%s %s: %w", flagName, path, err)
	}
	if len(entries) > 0 {
		switch {
		case resumes != nil && resumes(path):
		case force:
			for _, e := range entries {
				if err := os.RemoveAll(filepath.Join(path, e.Name())); err != nil {
					return nil, fmt.Errorf("%s %s: emptying it for -force: %w", flagName, path, err)
				}
			}
		default:
			return nil, fmt.Errorf("%s %s: holds %s; give another directory, or -force to replace what it holds", flagName, path, holds(entries))
		}
	}
	if err := writableDir(path); err != nil {
		return nil, fmt.Errorf("%s %s: %w", flagName, path, err)
	}
	return o, nil
}

// holds describes a directory's entries for an error: "a run
// (summary.json, jobs.csv, ...)" or "4 files (a, b, c, ...)".
func holds(entries []fs.DirEntry) string {
	names := make([]string, 0, len(entries))
	run := false
	for _, e := range entries {
		names = append(names, e.Name())
		switch e.Name() {
		case "summary.json", "compare.json", "validate.json", "testbed.json":
			run = true
		}
	}
	list := names
	if len(list) > 4 {
		list = append(list[:4:4], "...")
	}
	if run {
		return fmt.Sprintf("another run (%s)", strings.Join(list, ", "))
	}
	if len(names) == 1 {
		return fmt.Sprintf("a file or directory (%s)", names[0])
	}
	return fmt.Sprintf("%d files and directories (%s)", len(names), strings.Join(list, ", "))
}

// discard removes what the command wrote, after it failed: the directory
// itself if the command made it, else its contents.
func (o *outDir) discard() {
	if o == nil {
		return
	}
	if o.made {
		os.RemoveAll(o.path)
		return
	}
	entries, _ := os.ReadDir(o.path)
	for _, e := range entries {
		os.RemoveAll(filepath.Join(o.path, e.Name()))
	}
}
