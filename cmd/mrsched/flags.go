package main

import (
	"flag"
	"fmt"
	"io"
)

// commandFlags makes a command's flag set: its errors and -h go to
// stderr, and -h prints the usage lines, as given, before the flags'
// defaults. With no usage lines the flag package's own usage stays.
func commandFlags(name string, stderr io.Writer, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	if len(usage) > 0 {
		fs.Usage = func() {
			for _, u := range usage {
				fmt.Fprintln(stderr, u)
			}
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseCommand parses a command's flags. A bad flag is a usage error (-h
// stays flag.ErrHelp), and so is an argument left over or a required
// flag left empty, after the usage is printed.
func parseCommand(fs *flag.FlagSet, args []string, required ...*string) error {
	if err := fs.Parse(args); err != nil {
		return flagErr(err)
	}
	missing := fs.NArg() > 0
	for _, r := range required {
		missing = missing || *r == ""
	}
	if missing {
		fs.Usage()
		return errUsage
	}
	return nil
}
