package hadooptrace

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mrsched/mrsched/internal/gzfile"
)

// A job's configuration, as the job history server keeps it beside the
// history (<job id>_conf.xml, in both Hadoop 1's and MapReduce 2's done
// directories) and as Rumen copies it into a job's jobProperties, holds
// what the history does not: the memory its tasks asked for, and the
// properties Hadoop 1's Fair Scheduler names a job's pool by.

// The properties of a task's memory, MapReduce 2's name first, then
// Hadoop 1's (Rumen's JobConfPropertyNames.MAP_MEMORY_MB and
// REDUCE_MEMORY_MB take either).
var (
	mapMemoryProps    = []string{"mapreduce.map.memory.mb", "mapred.job.map.memory.mb"}
	reduceMemoryProps = []string{"mapreduce.reduce.memory.mb", "mapred.job.reduce.memory.mb"}
)

// maxSubstitutions bounds the ${var} expansions of one value, as Hadoop's
// Configuration does (MAX_SUBST, 20), so that a property defined by
// itself ends.
const maxSubstitutions = 20

// confValue is the value of property name in props, its ${var}
// references expanded from props as Hadoop's Configuration.get expands
// them (a reference to no property stays as written); ok is false when
// props does not set name.
func confValue(props map[string]string, name string) (string, bool) {
	v, ok := props[name]
	if !ok {
		return "", false
	}
	for range maxSubstitutions {
		start := strings.Index(v, "${")
		if start < 0 {
			break
		}
		end := strings.IndexByte(v[start:], '}')
		if end < 0 {
			break
		}
		ref := v[start+2 : start+end]
		sub, ok := props[ref]
		if !ok {
			break
		}
		v = v[:start] + sub + v[start+end+1:]
	}
	return v, true
}

// applyConf takes from a job's configuration props its tasks' memory,
// where the trace recorded none, and the properties of keep, expanded,
// into j.Conf.
func applyConf(j *Job, props map[string]string, keep []string) error {
	j.Configured = true
	mb := func(names []string, into *int64) error {
		if *into >= 0 {
			return nil
		}
		for _, name := range names {
			v, ok := confValue(props, name)
			if !ok {
				continue
			}
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < -1 {
				return fmt.Errorf("%s: %q is not a whole number of megabytes", name, trimForError(v))
			}
			if n > 0 {
				*into = n
			}
			return nil
		}
		return nil
	}
	if err := mb(mapMemoryProps, &j.MapMB); err != nil {
		return err
	}
	if err := mb(reduceMemoryProps, &j.ReduceMB); err != nil {
		return err
	}
	if len(keep) > 0 && j.Conf == nil {
		j.Conf = map[string]string{} // recorded, if without the properties kept
	}
	for _, name := range keep {
		if v, ok := confValue(props, name); ok {
			j.Conf[name] = v
		}
	}
	return nil
}

// readConfFile reads a job's configuration file, Hadoop's
// <configuration> of <property> name and value pairs, as Configuration
// loads one: names trimmed, a later value of a name over an earlier one.
func readConfFile(path string) (map[string]string, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d := xml.NewDecoder(f)
	props := map[string]string{}
	var name, value, field string
	inProp := false
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return props, nil
		}
		if err != nil {
			line, _ := d.InputPos()
			return nil, &ParseError{File: path, Line: line, Err: fmt.Errorf("a job configuration file: %w", err)}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch {
			case t.Name.Local == "property":
				inProp, name, value = true, "", ""
			case inProp:
				field = t.Name.Local
			}
		case xml.CharData:
			switch {
			case inProp && field == "name":
				name += string(t)
			case inProp && field == "value":
				value += string(t)
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "property":
				if n := strings.TrimSpace(name); n != "" {
					props[n] = value
				}
				inProp = false
			default:
				field = ""
			}
		}
	}
}

// historyConf reads the configuration beside job j's history file, when
// the job history server kept one there, into j (applyConf).
func historyConf(j *Job, keep []string) error {
	if j.ID == "" {
		return nil
	}
	path := filepath.Join(filepath.Dir(j.File), j.ID+"_conf.xml")
	if _, err := os.Stat(path); err != nil {
		return nil // none kept: the history alone
	}
	props, err := readConfFile(path)
	if err != nil {
		return err
	}
	if err := applyConf(j, props, keep); err != nil {
		return &ParseError{File: path, Job: j.ID, Err: err}
	}
	return nil
}
