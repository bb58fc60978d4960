package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mrsched/mrsched/sched"
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

// flagGiven reports whether the command line set flag name.
func flagGiven(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// usageFor prints a command's usage to stderr for arguments it does not
// take, and says why it will not run: flag.ErrHelp when they ask for help
// (-h), as the flag package answers it, else a usage error.
func usageFor(stderr io.Writer, usage string, args []string) error {
	fmt.Fprintln(stderr, usage)
	if len(args) > 0 && isHelp(args[0]) {
		return flag.ErrHelp
	}
	return errUsage
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

// parseInterleaved parses a command's flags where they may come before,
// after or between its positional arguments, and returns those arguments
// in order. A bad flag is a usage error (-h stays flag.ErrHelp).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagErr(err)
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// parseAroundOne parses a command's flags around its one positional
// argument, which may come before or after them, and returns it. A bad
// flag is a usage error (-h stays flag.ErrHelp); so is a missing or
// extra argument, after usage prints the command's usage.
func parseAroundOne(fs *flag.FlagSet, args []string, usage func()) (string, error) {
	var name string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		name, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return "", flagErr(err)
	}
	if name == "" && fs.NArg() == 1 {
		name = fs.Arg(0)
	} else if fs.NArg() > 0 || name == "" {
		usage()
		return "", errUsage
	}
	return name, nil
}

// parseFlagsOnly parses the flags of a command that takes no positional
// argument: a bad flag is a usage error (-h stays flag.ErrHelp), and so
// is an argument, named with where to look.
func parseFlagsOnly(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return flagErr(err)
	}
	if fs.NArg() > 0 {
		return badUsage("unexpected argument %q (%s takes only flags; see mrsched %s -h)", fs.Arg(0), fs.Name(), fs.Name())
	}
	return nil
}

// policyList reads a -policies flag: empty is every registered policy but
// the ablations, "all" every one, else comma-separated names, each checked
// to build and named once.
func policyList(list string) ([]string, error) {
	switch list {
	case "":
		return sched.MainPolicyNames(), nil
	case "all":
		return sched.PolicyNames(), nil
	}
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if _, err := sched.NewPolicy(n, nil); err != nil {
			return nil, fmt.Errorf("-policies: %w", err)
		}
		if slices.Contains(names, n) {
			return nil, fmt.Errorf("-policies: %s is named twice", n)
		}
		names = append(names, n)
	}
	return names, nil
}
