package hadooptrace

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// fuzzReader checks that no input panics or hangs a reader, that every
// job it accepts has non-negative byte sums, and that every rejection is
// a *ParseError naming the file. `go test` runs the seeds only; `go test
// -fuzz FuzzScanRumen -fuzztime 30s` explores.
func fuzzReader(f *testing.F, scan func(r *bytes.Reader, fn func(*Job) error) error, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err := scan(bytes.NewReader(data), func(j *Job) error {
			if j.InputBytes() < 0 || j.ShuffleBytes() < 0 || j.OutputBytes() < 0 {
				t.Errorf("job %s: negative bytes %d/%d/%d", j.ID, j.InputBytes(), j.ShuffleBytes(), j.OutputBytes())
			}
			return nil
		})
		var pe *ParseError
		if err != nil && (!errors.As(err, &pe) || !strings.HasPrefix(err.Error(), "f:")) {
			t.Errorf("error %v (%T); want a *ParseError naming the file", err, err)
		}
	})
}

func FuzzScanRumen(f *testing.F) {
	fuzzReader(f, func(r *bytes.Reader, fn func(*Job) error) error { return ScanRumen(r, "f", fn) },
		rumenJob, rumenJobReordered, rumenMapOnly, "{}", "{\"jobID\":\"\\ud800\"}", "{\"a\":1e400}", "[[[[[[[[")
}

func FuzzScanJhist(f *testing.F) {
	binary, err := os.ReadFile("testdata/history-binary/job_1700000100000_0003-1700000130000-carol-wordcount-1700000142600-1-1-SUCCEEDED-root.dev-1700000131500.jhist")
	if err != nil {
		f.Fatal(err)
	}
	fuzzReader(f, func(r *bytes.Reader, fn func(*Job) error) error { return ScanJhist(r, "f", fn) },
		jhist, "Avro-Json\n{}\n", "Avro-Json\n", string(binary),
		binaryHistory(submittedSchema(`{"name":"jobid","type":"string"}`), 0x06, 'j', '_', '1'),
		MR1HistoryMagic+"\n"+`Job JOBID="job_1" SUBMIT_TIME="1" JOB_QUEUE="a\.b" .`+"\n"+
			`Task TASKID="t_m_0" TASK_TYPE="MAP" START_TIME="2" SPLITS="/r/h1,h2" .`+"\n"+
			`MapAttempt TASK_TYPE="MAP" TASKID="t_m_0" TASK_ATTEMPT_ID="a_m_0_0" TASK_STATUS="FAILED" FINISH_TIME="3" HOSTNAME="h1" ERROR="x`+"\n"+`y" .`+"\n"+
			`Task TASKID="t_m_0" TASK_TYPE="MAP" TASK_STATUS="SUCCESS" FINISH_TIME="4" COUNTERS="{(g)(d)[(HDFS_BYTES_READ)(r)(9)]}" .`+"\n")
}

func FuzzScanSLS(f *testing.F) {
	fuzzReader(f, func(r *bytes.Reader, fn func(*Job) error) error { return ScanSLS(r, "f", fn) },
		slsJobs, "{\"job.tasks\":[{}]}")
}
