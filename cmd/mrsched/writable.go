package main

import (
	"errors"
	"io/fs"
	"os"
)

// writableFile checks that path can be written, without changing a file
// that is there: for an output file asked for at the start of a long run,
// so that one that cannot be written is an error before the run.
func writableFile(path string) error {
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	f.Close()
	if errors.Is(statErr, fs.ErrNotExist) {
		return os.Remove(path)
	}
	return nil
}
