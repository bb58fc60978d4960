package hadooptrace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mrsched/mrsched/internal/gzfile"
)

// sniffBytes is how much of a file Sniff looks at: enough for the first
// keys of a Rumen or SLS job, whose first task can be long, or a SWIM line.
const sniffBytes = 64 << 10

// ErrNotJobTrace says a file is in a format this package does not read
// as jobs (a topology, an allocation file).
var ErrNotJobTrace = errors.New("not a job trace")

// Sniff tells a job trace's format from its first bytes: a JobHistory
// file starts with "Avro-Json" or "Avro-Binary"; a JSON object is a Rumen job when it has
// a "jobID", "mapTasks", "reduceTasks", "taskID" or "attemptID" key, an
// SLS job when it has "job.tasks", "job.id", "job.start.ms", "am.type",
// "container.host" or "container.start.ms" (whichever comes first in the
// text decides);
// text whose first line has six or nine tab-separated fields is SWIM.
// Anything else is an error wrapping ErrNotJobTrace, naming what the file
// looks like when it can tell (a Rumen topology, an SLS nodes file).
func Sniff(head []byte) (Format, error) {
	if isJhist(head) {
		return FormatJhist, nil
	}
	if bytes.HasPrefix(head, []byte("Obj\x01")) {
		// What avro-tools and Avro's DataFileWriter write; MapReduce's
		// EventWriter writes its own header and no container.
		return "", fmt.Errorf("%w: an Avro object container file, not a JobHistory file as MapReduce writes it (first line Avro-Json or Avro-Binary)", ErrNotJobTrace)
	}
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		first := func(keys ...string) int {
			at := -1
			for _, k := range keys {
				if i := bytes.Index(t, []byte(`"`+k+`"`)); i >= 0 && (at < 0 || i < at) {
					at = i
				}
			}
			return at
		}
		// Keys of the job and of its tasks, so that a job whose id comes
		// after a long task list is still told by its tasks' keys.
		rumen := first("jobID", "mapTasks", "reduceTasks", "taskID", "attemptID")
		sls := first("job.tasks", "job.id", "job.start.ms", "am.type", "container.host", "container.start.ms")
		switch {
		case rumen >= 0 && (sls < 0 || rumen < sls):
			return FormatRumen, nil
		case sls >= 0:
			return FormatSLS, nil
		case first("children") >= 0:
			return "", fmt.Errorf("%w: a Rumen topology (give it as the cluster's topology)", ErrNotJobTrace)
		case first("nodes") >= 0 && first("rack") >= 0:
			return "", fmt.Errorf("%w: an SLS nodes file (give it as the cluster's topology)", ErrNotJobTrace)
		}
		return "", fmt.Errorf("%w: JSON without Rumen's \"jobID\" or SLS's \"job.tasks\" in its first %d bytes", ErrNotJobTrace, len(head))
	}
	line := t
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	if n := len(strings.Split(strings.TrimRight(string(line), "\r"), "\t")); n == 6 || n == 9 {
		return FormatSWIM, nil
	}
	if bytes.HasPrefix(t, []byte("<")) {
		// Name the operator's XML files by their root element: the
		// first element after any declaration or comment.
		what := "XML (an allocation file goes under policy.allocations, a mapred-site.xml or yarn-site.xml under policy.site)"
		switch {
		case bytes.Contains(t, []byte("<allocations")):
			what = "an allocation file (give it as policy.allocations, -allocations)"
		case bytes.Contains(t, []byte("<configuration")):
			what = "a Hadoop site file (give it as policy.site, -site)"
		}
		return "", fmt.Errorf("%w: %s", ErrNotJobTrace, what)
	}
	return "", fmt.Errorf("%w: neither JobHistory, Rumen or SLS JSON, nor SWIM's tab-separated columns", ErrNotJobTrace)
}

// SniffPath tells the format of the trace at path: a directory is read
// as JobHistory files; a file by its first bytes (Sniff).
func SniffPath(path string) (Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.IsDir() {
		files, err := jhistFiles(path)
		if err != nil {
			return "", err
		}
		if len(files) == 0 {
			return "", fmt.Errorf("%s: a directory without .jhist files", path)
		}
		return FormatJhist, nil
	}
	f, err := gzfile.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	head := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", err
	}
	if n == 0 {
		return "", fmt.Errorf("%s: empty file", path)
	}
	format, err := Sniff(head[:n])
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return format, nil
}

// ScanPath reads the Rumen, JobHistory or SLS trace at path in format
// (sniffed when ""), calling fn with each job in file order. SWIM traces
// are not jobs of this kind: they are read by workload.ParseSWIM.
func ScanPath(path string, format Format, fn func(*Job) error) error {
	return ScanPathKeeping(path, format, nil, fn)
}

// ScanPathKeeping is ScanPath keeping, in each job's Conf, the job
// configuration properties keep names: from a Rumen job's jobProperties,
// or from the <job id>_conf.xml the job history server keeps beside a
// history. Either also gives a task's memory the trace does not record.
func ScanPathKeeping(path string, format Format, keep []string, fn func(*Job) error) error {
	if format == "" {
		var err error
		if format, err = SniffPath(path); err != nil {
			return err
		}
	}
	switch format {
	case FormatRumen:
		return scanFile(path, func(r io.Reader, file string, fn func(*Job) error) error { return scanRumen(r, file, keep, fn) }, fn)
	case FormatSLS:
		return scanFile(path, ScanSLS, fn)
	case FormatJhist:
		return scanJhistPath(path, keep, fn)
	case FormatSWIM:
		return fmt.Errorf("%s: a SWIM trace is read by the SWIM reader", path)
	}
	return fmt.Errorf("%s: unknown trace format %q; want one of %s", path, format, strings.Join(Formats(), ", "))
}
