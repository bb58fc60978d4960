package hadooptrace

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mrsched/mrsched/internal/realinputs"
	"github.com/mrsched/mrsched/internal/testfile"
)

// rumenJob is a small Rumen job written from LoggedJob's fields: two maps
// (one with a failed then a successful attempt), one reduce, a setup task.
const rumenJob = `{"jobID":"job_1_0001","user":"alice","jobName":"wc","queue":"prod","outcome":"SUCCESS",
 "submitTime":1000,"launchTime":1500,"finishTime":61000,"jobMapMB":1536,
 "mapTasks":[
  {"taskID":"task_1_0001_m_000000","taskType":"MAP","inputBytes":100,"preferredLocations":[{"layers":["r1","h1"]}],
   "attempts":[{"attemptID":"a0","result":"FAILED","hostName":"/r1/h1","startTime":2000,"finishTime":3000,"hdfsBytesRead":-1,"hdfsBytesWritten":-1},
               {"attemptID":"a1","result":"SUCCESS","hostName":"/r1/h2","startTime":3000,"finishTime":9000,"hdfsBytesRead":100,"hdfsBytesWritten":-1}]},
  {"taskID":"task_1_0001_m_000001","taskType":"MAP","inputBytes":-1,
   "attempts":[{"result":"SUCCESS","hostName":"/r2/h3","startTime":2000,"finishTime":8000}]}],
 "reduceTasks":[{"taskID":"task_1_0001_r_000000","taskType":"REDUCE","inputBytes":40,
   "attempts":[{"result":"SUCCESS","hostName":"/r2/h3","startTime":9000,"finishTime":20000,"reduceShuffleBytes":40,"hdfsBytesWritten":30}]}],
 "otherTasks":[{"taskID":"task_1_0001_m_000002","taskType":"SETUP","attempts":[{"result":"SUCCESS","hostName":"/r1/h1"}]}],
 "unusedKey":{"nested":[1,2,{"x":null}]}}
`

// The same job's keys in another order, which must read the same.
const rumenJobReordered = `{"otherTasks":[{"attempts":[{"hostName":"/r1/h1","result":"SUCCESS"}],"taskType":"SETUP"}],
 "reduceTasks":[{"attempts":[{"hdfsBytesWritten":30,"reduceShuffleBytes":40,"finishTime":20000,"startTime":9000,"hostName":"/r2/h3","result":"SUCCESS"}],"taskType":"REDUCE"}],
 "mapTasks":[
  {"attempts":[{"hdfsBytesRead":-1,"finishTime":3000,"startTime":2000,"hostName":"/r1/h1","result":"FAILED"},
               {"hdfsBytesWritten":-1,"hostName":"/r1/h2","finishTime":9000,"startTime":3000,"result":"SUCCESS"}],"preferredLocations":[{"layers":["r1","h1"]}],"inputBytes":100},
  {"inputBytes":-1,"attempts":[{"finishTime":8000,"startTime":2000,"hostName":"/r2/h3","result":"SUCCESS"}]}],
 "jobMapMB":1536,"finishTime":61000,"launchTime":1500,"submitTime":1000,"outcome":"SUCCESS","queue":"prod","jobName":"wc","user":"alice","jobID":"job_1_0001"}`

// A map-only job whose maps write the output, and a duplicate of job 1.
const rumenMapOnly = `{"jobID":"job_1_0002","user":"bob","queue":"default","outcome":"FAILED","submitTime":5000,
 "mapTasks":[{"inputBytes":64,"attempts":[{"result":"SUCCESS","hostName":"/r1/h1","hdfsBytesWritten":7}]},
             {"inputBytes":64,"attempts":[{"result":"KILLED","hostName":"/r1/h1"},{"result":"FAILED","hostName":"/r1/h2"}]}],
 "reduceTasks":[]}
{"jobID":"job_1_0001","mapTasks":[{"inputBytes":999}]}`

func TestRumenStats(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		want        Stats
	}{
		{"one job, keys in Rumen's order", rumenJob, Stats{Jobs: 1, Maps: 2, Reduces: 1, OtherTasks: 1,
			InputBytes: 100, ShuffleBytes: 40, OutputBytes: 30, Hosts: 3, Racks: 2, FailedAttempts: 1}},
		{"one job, keys reversed", rumenJobReordered, Stats{Jobs: 1, Maps: 2, Reduces: 1, OtherTasks: 1,
			InputBytes: 100, ShuffleBytes: 40, OutputBytes: 30, Hosts: 3, Racks: 2, FailedAttempts: 1}},
		{"map-only, failed job, duplicate id", rumenJob + rumenMapOnly, Stats{Jobs: 2, Maps: 4, Reduces: 1, OtherTasks: 1,
			InputBytes: 228, ShuffleBytes: 40, OutputBytes: 37, Hosts: 3, Racks: 2, FailedAttempts: 2, KilledAttempts: 1,
			DuplicateJobs: 1, FailedJobs: 1, TasksWithoutSuccess: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCollector(FormatRumen)
			if err := ScanRumen(strings.NewReader(tc.trace), "t.json", func(j *Job) error { c.Add(j); return nil }); err != nil {
				t.Fatal(err)
			}
			got := c.Stats()
			got.HostNames, got.RackNames, got.Format, got.FirstSubmitMS, got.LastSubmitMS = nil, nil, "", 0, 0
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("stats\n got %+v\nwant %+v\n(-1 counters read as unknown, SETUP not a map, a map-only job's output its maps' writes, a repeated id dropped)", got, tc.want)
			}
		})
	}
}

func TestRumenJobFields(t *testing.T) {
	var jobs []*Job
	if err := ScanRumen(strings.NewReader(rumenJobReordered), "t.json", func(j *Job) error { jobs = append(jobs, j); return nil }); err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	if j.ID != "job_1_0001" || j.User != "alice" || j.Queue != "prod" || j.Submit != 1000 || j.Finish != 61000 || j.MapMB != 1536 || j.ReduceMB != Unknown {
		t.Errorf("job fields %+v; want the id, user, queue, times and memory as written, reduce memory unknown", j)
	}
	if got := j.Maps[0].Preferred; len(got) != 1 || got[0] != (Location{"/r1", "h1"}) {
		t.Errorf("preferred locations %v; want /r1 h1 from the layers", got)
	}
	if a, ok := j.Maps[0].Success(); !ok || a.Loc != (Location{"/r1", "h2"}) {
		t.Errorf("successful attempt %+v; want the second, on /r1/h2", a)
	}
	if j.Maps[1].Input != Unknown {
		t.Errorf("inputBytes -1 read as %d; want Unknown", j.Maps[1].Input)
	}
}

func TestRumenErrorsNameLineJobAndField(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		want        []string
	}{
		{"a string for a count", "{\"jobID\":\"job_7\",\n\"mapTasks\":[{\"taskID\":\"t_m_1\",\n\"inputBytes\":\"many\"}]}",
			[]string{"t.json:3", "job job_7", "task t_m_1", `"inputBytes"`, "want a whole number"}},
		{"a negative count", "{\"jobID\":\"job_7\",\"submitTime\":-5}", []string{"t.json:1", "job job_7", `"submitTime"`, "negative"}},
		{"an unknown result", "{\"jobID\":\"j\",\"mapTasks\":[{\"attempts\":[{\"attemptID\":\"a_1\",\"result\":\"MAYBE\"}]}]}",
			[]string{"attempts[0]", `"result"`, "MAYBE"}},
		{"truncated", "{\"jobID\":\"j\",\"mapTasks\":[", []string{"t.json", "input ends"}},
		{"not an object", "[1,2]", []string{"t.json:1", "want a job object"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ScanRumen(strings.NewReader(tc.trace), "t.json", func(*Job) error { return nil })
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err %v; want a *ParseError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q: it must name the file, line, job, task and field", err, w)
				}
			}
		})
	}
}

// jhist is a JobHistory file written from the Event schema: a job with a
// map that failed once, a reduce, and a setup attempt.
const jhist = `Avro-Json
{"type":"record","name":"Event","fields":[]}
{"type":"JOB_SUBMITTED","event":{"org.apache.hadoop.mapreduce.jobhistory.JobSubmitted":{"jobid":"job_9_0001","jobName":"sort","userName":"carol","submitTime":100000,"jobQueueName":"default","workflowId":{"string":""}}}}

{"event":{"org.apache.hadoop.mapreduce.jobhistory.JobQueueChange":{"jobid":"job_9_0001","jobQueueName":"root.etl"}},"type":"JOB_QUEUE_CHANGED"}
{"type":"JOB_INITED","event":{"org.apache.hadoop.mapreduce.jobhistory.JobInited":{"jobid":"job_9_0001","launchTime":101000,"totalMaps":1,"totalReduces":1}}}
{"type":"TASK_STARTED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskStarted":{"taskid":"task_9_0001_m_000000","taskType":"MAP","startTime":102000,"splitLocations":"n1,n2"}}}
{"type":"MAP_ATTEMPT_STARTED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskAttemptStarted":{"taskid":"task_9_0001_m_000000","attemptId":"attempt_9_0001_m_000000_0","startTime":102000,"trackerName":"n1"}}}
{"type":"MAP_ATTEMPT_FAILED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskAttemptUnsuccessfulCompletion":{"taskid":"task_9_0001_m_000000","attemptId":"attempt_9_0001_m_000000_0","finishTime":103000,"hostname":"n1","rackname":"/ra","status":"FAILED"}}}
{"type":"MAP_ATTEMPT_STARTED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskAttemptStarted":{"taskid":"task_9_0001_m_000000","attemptId":"attempt_9_0001_m_000000_1","startTime":104000,"trackerName":"n2"}}}
{"type":"MAP_ATTEMPT_FINISHED","event":{"org.apache.hadoop.mapreduce.jobhistory.MapAttemptFinished":{"taskid":"task_9_0001_m_000000","attemptId":"attempt_9_0001_m_000000_1","finishTime":110000,"hostname":"n2","rackname":"/rb","counters":{"name":"C","groups":[{"name":"fs","counts":[{"name":"HDFS_BYTES_READ","value":5000},{"name":"HDFS_BYTES_WRITTEN","value":0}]}]}}}}
{"type":"TASK_FINISHED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskFinished":{"taskid":"task_9_0001_m_000000","taskType":"MAP","finishTime":110000,"counters":{"groups":[{"counts":[{"name":"HDFS_BYTES_READ","value":5000}]}]}}}}
{"type":"REDUCE_ATTEMPT_STARTED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskAttemptStarted":{"taskid":"task_9_0001_r_000000","attemptId":"attempt_9_0001_r_000000_0","startTime":105000}}}
{"type":"REDUCE_ATTEMPT_FINISHED","event":{"org.apache.hadoop.mapreduce.jobhistory.ReduceAttemptFinished":{"taskid":"task_9_0001_r_000000","attemptId":"attempt_9_0001_r_000000_0","finishTime":120000,"hostname":"n1","rackname":"/ra","counters":{"groups":[{"counts":[{"name":"REDUCE_SHUFFLE_BYTES","value":800},{"name":"HDFS_BYTES_WRITTEN","value":600}]}]}}}}
{"type":"SETUP_ATTEMPT_FINISHED","event":{"org.apache.hadoop.mapreduce.jobhistory.TaskAttemptFinished":{"taskid":"task_9_0001_s_000000","attemptId":"attempt_9_0001_s_000000_0","finishTime":101500,"hostname":"n1","rackname":"/ra"}}}
{"type":"JOB_FINISHED","event":{"org.apache.hadoop.mapreduce.jobhistory.JobFinished":{"jobid":"job_9_0001","finishTime":121000,"finishedMaps":1,"finishedReduces":1}}}
`

func TestJhist(t *testing.T) {
	var jobs []*Job
	if err := ScanJhist(strings.NewReader(jhist), "h.jhist", func(j *Job) error { jobs = append(jobs, j); return nil }); err != nil {
		t.Fatal(err)
	}
	j := jobs[0]
	if j.ID != "job_9_0001" || j.User != "carol" || j.Queue != "root.etl" || j.Submit != 100000 || j.Launch != 101000 || j.Finish != 121000 || j.Outcome != "SUCCESS" {
		t.Errorf("job %+v; want the submitted fields, the changed queue, and success from JOB_FINISHED", j)
	}
	if len(j.Maps) != 1 || len(j.Reduces) != 1 || j.Other != 1 {
		t.Fatalf("%d maps, %d reduces, %d other; want 1, 1, 1 (the setup attempt is not a map)", len(j.Maps), len(j.Reduces), j.Other)
	}
	m := j.Maps[0]
	if len(m.Attempts) != 2 || m.Attempts[0].Result != Failed || m.Attempts[1].Result != Succeeded {
		t.Errorf("map attempts %+v; want a failed then a successful one", m.Attempts)
	}
	if a := m.Attempts[1]; a.Start != 104000 || a.Finish != 110000 || a.Loc != (Location{"/rb", "n2"}) {
		t.Errorf("successful attempt %+v; want 104000-110000 on /rb n2", a)
	}
	if j.InputBytes() != 5000 || j.ShuffleBytes() != 800 || j.OutputBytes() != 600 {
		t.Errorf("bytes %d/%d/%d; want 5000 input (HDFS_BYTES_READ), 800 shuffle, 600 output", j.InputBytes(), j.ShuffleBytes(), j.OutputBytes())
	}
	if len(m.Preferred) != 2 || m.Preferred[1].Host != "n2" {
		t.Errorf("preferred %v; want n1, n2 from splitLocations", m.Preferred)
	}
}

// TestJhistSplitLocations: a split location is a host by name, as YARN's
// MapReduce writes it, or a network path /rack/host, as Hadoop 1's
// JobTracker writes it and Rumen reads it; the path's last part is the
// host, so that either form names a node of the cluster.
func TestJhistSplitLocations(t *testing.T) {
	for _, tc := range []struct {
		name, splits string
		want         []Location
	}{
		{"YARN's host names", "n1, n2", []Location{{"", "n1"}, {"", "n2"}}},
		{"Hadoop 1's network paths", "/ra/n1,/rb/n2", []Location{{"/ra", "n1"}, {"/rb", "n2"}}},
		{"a path of a deeper tree", "/dc1/ra/n1", []Location{{"/dc1/ra", "n1"}}},
		{"none", "", nil},
		{"a path without a host is kept whole", "/ra/", []Location{{"", "/ra/"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := strings.Replace(jhist, `"splitLocations":"n1,n2"`, `"splitLocations":"`+tc.splits+`"`, 1)
			var got []Location
			if err := ScanJhist(strings.NewReader(in), "h.jhist", func(j *Job) error { got = j.Maps[0].Preferred; return nil }); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("splitLocations %q read as %v; want %v", tc.splits, got, tc.want)
			}
		})
	}
}

func TestJhistErrors(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"binary Avro", "Obj\x01\x04", `want "Avro-Json"`},
		{"no job", "Avro-Json\n{}\n", "no JOB_SUBMITTED"},
		{"bad counter", "Avro-Json\n{}\n{\"type\":\"JOB_SUBMITTED\",\"event\":{\"x\":{\"jobid\":\"j\",\"submitTime\":\"soon\"}}}\n", "h.jhist:3"},
		{"event without type", "Avro-Json\n{}\n{\"event\":{}}\n", "without its \"type\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ScanJhist(strings.NewReader(tc.in), "h.jhist", func(*Job) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}

// slsJobs is an SLS jobs file as the SLS documentation shows one.
const slsJobs = `{"am.type":"mapreduce","job.start.ms":0,"job.end.ms":95375,"job.queue.name":"sls_queue_1","job.id":"job_1","job.user":"default",
 "job.tasks":[{"container.host":"/default-rack/node1","container.start.ms":6664,"container.end.ms":23707,"container.priority":20,"container.type":"map"},
              {"container.host":"/default-rack/node3","container.start.ms":6665,"container.end.ms":21593,"container.priority":20,"container.type":"map"},
              {"container.host":"/default-rack/node2","container.start.ms":68770,"container.end.ms":86613,"container.priority":20,"container.type":"reduce"}]}
{"job.tasks":[{"container.end.ms":9000,"container.start.ms":1000,"container.host":"/rack2/node4"}],"job.id":"job_2","job.queue.name":"sls_queue_2","job.start.ms":500}`

func TestSLS(t *testing.T) {
	c := NewCollector(FormatSLS)
	var jobs []*Job
	if err := ScanSLS(strings.NewReader(slsJobs), "s.json", func(j *Job) error { c.Add(j); jobs = append(jobs, j); return nil }); err != nil {
		t.Fatal(err)
	}
	s := c.Stats()
	if s.Jobs != 2 || s.Maps != 3 || s.Reduces != 1 || s.Hosts != 4 || s.Racks != 2 || !s.BytesModelled || s.InputBytes != 0 {
		t.Errorf("stats %+v; want 2 jobs, 3 maps (a container without a type is a map), 1 reduce, 4 hosts, 2 racks, bytes modelled", s)
	}
	if d, ok := jobs[0].Reduces[0].Attempts[0].Duration(); !ok || d != 17.843 {
		t.Errorf("reduce container duration %v; want 17.843 s", d)
	}
	for _, bad := range []struct{ in, want string }{
		{`{"am.type":"spark","job.tasks":[]}`, `"am.type"`},
		{`{"job.tasks":[{"container.type":"shuffle"}]}`, "job.tasks[0]"},
		{`{"job.tasks":[{"container.start.ms":5,"container.end.ms":1}]}`, "before container.start.ms"},
	} {
		if err := ScanSLS(strings.NewReader(bad.in), "s.json", func(*Job) error { return nil }); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v; want one naming %q", bad.in, err, bad.want)
		}
	}
}

func TestSniff(t *testing.T) {
	for _, tc := range []struct {
		head string
		want Format
		err  string
	}{
		{rumenJob, FormatRumen, ""},
		{rumenJobReordered, FormatRumen, ""},
		{jhist, FormatJhist, ""},
		{slsJobs, FormatSLS, ""},
		{"job0\t1\t1\t10\t20\t30\n", FormatSWIM, ""},
		{`{"name":"<root>","children":[]}`, "", "Rumen topology"},
		{`{"rack":"r","nodes":[{"node":"n"}]}`, "", "SLS nodes"},
		{"<allocations/>", "", "an allocation file (give it as policy.allocations"},
		{"Obj\x01\x04\x14avro.codec", "", "an Avro object container file"},
		{"Avro-Binary\n{}", FormatJhist, ""},
		{"<?xml version=\"1.0\"?>\n<configuration><property/></configuration>", "", "a Hadoop site file (give it as policy.site"},
		{"<jobs/>", "", "XML (an allocation file goes under policy.allocations"},
		{"h1 /r1\n", "", "neither"},
	} {
		got, err := Sniff([]byte(tc.head))
		if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Sniff(%.30q) = %q, %v; want %q and an error containing %q", tc.head, got, err, tc.want, tc.err)
		}
	}
}

// TestJhistDirectory: a directory is read for its .jhist files at any
// depth, as the JobHistory server files them (done/YYYY/MM/DD/serial/,
// with each job's _conf.xml beside its history); other files are left.
func TestJhistDirectory(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"flat", map[string]string{"b.jhist": "job_9_0002", "a.jhist": "job_9_0001", "notes.txt": ""}},
		{"a done directory's folders", map[string]string{
			"2026/11/29/000000/b.jhist": "job_9_0002", "2026/11/30/000000/a.jhist": "job_9_0001",
			"2026/11/30/000000/job_9_0001_conf.xml": ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, id := range tc.files {
				body := "x"
				if id != "" {
					body = strings.ReplaceAll(jhist, "job_9_0001", id)
				}
				testfile.Write(t, filepath.Join(dir, name), body)
			}
			s, err := StatsOf(dir, "")
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != FormatJhist || s.Jobs != 2 || s.Maps != 2 {
				t.Errorf("directory stats %+v; want 2 jhist jobs, one a .jhist file, the other files left", s)
			}
		})
	}
}

// TestRealTraces reads the real files and checks facts.py's counts.
func TestRealTraces(t *testing.T) {
	dir := realinputs.Dir(t)
	for _, tc := range []struct {
		file string
		want Stats
	}{
		{"rumen-wordcount.json", Stats{Format: FormatRumen, Jobs: 1, Maps: 3, Reduces: 1, OtherTasks: 2, InputBytes: 1445391, ShuffleBytes: 127823, OutputBytes: 122793, Hosts: 1, Racks: 1}},
		{"rumen-hadoop2-hive.json", Stats{Format: FormatRumen, Jobs: 1, Maps: 26, InputBytes: 7607695644, OutputBytes: 33559310, Hosts: 4, Racks: 1}},
		{"teragen.jhist", Stats{Format: FormatJhist, Jobs: 1, Maps: 2, InputBytes: 158, OutputBytes: 10000, Hosts: 1, Racks: 1}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			got, err := StatsOf(filepath.Join(dir, tc.file), "")
			if err != nil {
				t.Fatal(err)
			}
			got.HostNames, got.RackNames, got.FirstSubmitMS, got.LastSubmitMS = nil, nil, 0, 0
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("stats\n got %+v\nwant %+v (facts.py)", got, tc.want)
			}
		})
	}
}

// TestJhistBinary: a history in Avro's binary encoding, Hadoop 3's
// default, reads as the same jobs as its JSON twin. The binary twins in
// testdata/history-binary are examples/hadoop/history re-encoded by the
// JSON files' own schema with the Avro project's Python encoder (union
// branches as the JSON encoding names them), so that the decoder is
// checked against another implementation, not against itself.
func TestJhistBinary(t *testing.T) {
	read := func(path string) []*Job {
		t.Helper()
		var jobs []*Job
		if err := ScanJhistPath(path, func(j *Job) error { j.File = ""; jobs = append(jobs, j); return nil }); err != nil {
			t.Fatal(err)
		}
		return jobs
	}
	fromJSON, fromBinary := read("../../examples/hadoop/history"), read("testdata/history-binary")
	if len(fromJSON) != 3 {
		t.Fatalf("%d jobs from the JSON histories; want the example's 3", len(fromJSON))
	}
	if !reflect.DeepEqual(fromJSON, fromBinary) {
		for i := range min(len(fromJSON), len(fromBinary)) {
			if !reflect.DeepEqual(fromJSON[i], fromBinary[i]) {
				t.Errorf("job %d from binary:\n%+v\nwant, as from its JSON twin:\n%+v", i, fromBinary[i], fromJSON[i])
			}
		}
		t.Fatalf("%d jobs from binary, %d from JSON; want the same jobs", len(fromBinary), len(fromJSON))
	}
	if f, err := SniffPath("testdata/history-binary"); err != nil || f != FormatJhist {
		t.Errorf("a directory of binary histories sniffed as %q, %v; want %q", f, err, FormatJhist)
	}
}

// binaryHistory is a binary history of one JOB_SUBMITTED event by schema,
// its body's fields encoded in body.
func binaryHistory(schema string, body ...byte) string {
	return "Avro-Binary\n" + schema + "\n" + string(append([]byte{0x00, 0x00}, body...))
}

// submittedSchema is an Event schema whose JobSubmitted record has the
// given fields, written out as JSON field declarations.
func submittedSchema(fields string) string {
	return `{"type":"record","name":"Event","namespace":"org.apache.hadoop.mapreduce.jobhistory","fields":[` +
		`{"name":"type","type":{"type":"enum","name":"EventType","symbols":["JOB_SUBMITTED"]}},` +
		`{"name":"event","type":[{"type":"record","name":"JobSubmitted","fields":[` + fields + `]}]}]}`
}

// TestJhistBinaryErrors: a broken binary history is an error naming the
// file, the event and its byte, and the field where one is to blame.
func TestJhistBinaryErrors(t *testing.T) {
	whole, err := os.ReadFile("testdata/history-binary/job_1700000100000_0003-1700000130000-carol-wordcount-1700000142600-1-1-SUCCEEDED-root.dev-1700000131500.jhist")
	if err != nil {
		t.Fatal(err)
	}
	jobID := `{"name":"jobid","type":"string"}`
	for _, tc := range []struct{ name, in, want string }{
		{"cut inside an event", string(whole[:len(whole)-40]), "h.jhist: event 11 (byte "},
		{"a schema that is not JSON", "Avro-Binary\n{\"type\":\n", "h.jhist:2: field \"schema\": schema:"},
		{"a schema naming a type it never defines", "Avro-Binary\n\"Event\"\n", `type "Event" is neither`},
		{"a field of another type than Hadoop's", binaryHistory(submittedSchema(jobID+`,{"name":"submitTime","type":"string"}`), 0x06, 'j', '_', '1', 0x02, 'x'),
			`event 1 (byte 0 after the header), field "submitTime": a string`},
		{"an event that is not a record", "Avro-Binary\n\"long\"\n\x02", "an event of type int64"},
		{"no JOB_SUBMITTED", "Avro-Binary\n" + submittedSchema(jobID) + "\n", "no JOB_SUBMITTED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ScanJhist(strings.NewReader(tc.in), "h.jhist", func(*Job) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one holding %q", err, tc.want)
			}
		})
	}
	// The smallest history that reads: one JOB_SUBMITTED of a job id.
	var got *Job
	if err := ScanJhist(strings.NewReader(binaryHistory(submittedSchema(jobID), 0x06, 'j', '_', '1')), "h.jhist", func(j *Job) error { got = j; return nil }); err != nil || got.ID != "j_1" {
		t.Errorf("one JOB_SUBMITTED event: job %+v, %v; want job j_1", got, err)
	}
}

// TestMR1History reads examples/hadoop/history-mr1, Hadoop 1 JobTracker
// histories written for the project in the JobHistory format (Meta
// VERSION="1"): records of KEY="value" pairs, values escaped with a
// backslash, a failed attempt's ERROR running over two lines, and the
// compact counters string, {(group)(display)[(name)(display)(value)]}.
func TestMR1History(t *testing.T) {
	var jobs []*Job
	if err := ScanJhistPath("../../examples/hadoop/history-mr1", func(j *Job) error { jobs = append(jobs, j); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("%d jobs; want the directory's 2 histories", len(jobs))
	}
	j := jobs[0]
	if j.ID != "job_201311010000_0001" || j.Name != "daily-etl" || j.User != "alice" || j.Queue != "prod.etl" ||
		j.Submit != 1383264001000 || j.Launch != 1383264002200 || j.Outcome != "SUCCESS" || j.Finish != 1383264023400 {
		t.Errorf("job %+v; want job_201311010000_0001 (daily-etl, alice, queue prod.etl), submitted 1383264001000, launched 1383264002200, finished 1383264023400", j)
	}
	if len(j.Maps) != 3 || len(j.Reduces) != 1 || j.Other != 2 {
		t.Fatalf("%d maps, %d reduces, %d other tasks; want 3, 1 and the setup and cleanup tasks", len(j.Maps), len(j.Reduces), j.Other)
	}
	if got, want := j.Maps[0].Preferred, []Location{{"/rackA", "node1"}, {"/rackB", "node4"}, {"/rackB", "node5"}}; !slices.Equal(got, want) {
		t.Errorf("map 0's splits %v; want %v, SPLITS' /rack/host paths", got, want)
	}
	m := j.Maps[1]
	if len(m.Attempts) != 2 || m.Attempts[0].Result != Failed || m.Attempts[0].Loc != (Location{"", "node3"}) || m.Attempts[1].Result != Succeeded {
		t.Errorf("map 1's attempts %+v; want a failed one on node3 (HOSTNAME without its rack, as Hadoop 1 wrote failures), then a successful one", m.Attempts)
	}
	if a := m.Attempts[1]; a.Loc != (Location{"/rackA", "node2"}) || a.Start != 1383264006300 || a.Finish != 1383264015700 {
		t.Errorf("map 1's second attempt %+v; want /rackA node2, 1383264006300 to 1383264015700", a)
	}
	if r := j.Reduces[0].Attempts[0]; r.SortFinish != 1383264018000 || r.Loc != (Location{"/rackB", "node6"}) {
		t.Errorf("the reduce's attempt %+v; want its sort finished at 1383264018000 (SORT_FINISHED) on /rackB node6", r)
	}
	if j.InputBytes() != 3*64<<20 || j.ShuffleBytes() != 72<<20 || j.OutputBytes() != 36<<20 {
		t.Errorf("bytes %d/%d/%d; want 3 x 64 MiB read (HDFS_BYTES_READ), 72 MiB shuffled (REDUCE_SHUFFLE_BYTES), 36 MiB written (HDFS_BYTES_WRITTEN)",
			j.InputBytes(), j.ShuffleBytes(), j.OutputBytes())
	}
	if f, err := SniffPath("../../examples/hadoop/history-mr1/job_201311010000_0002_1383264016000_dave_grep+logs"); err != nil || f != FormatJhist {
		t.Errorf("a Hadoop 1 history sniffed as %q, %v; want %q", f, err, FormatJhist)
	}
}

// TestMR1HistoryErrors: a broken Hadoop 1 history is an error naming the
// file, the record's line and the field.
func TestMR1HistoryErrors(t *testing.T) {
	const head = MR1HistoryMagic + "\n"
	for _, tc := range []struct{ name, in, want string }{
		{"a time that is not a number", head + `Job JOBID="job_1" SUBMIT_TIME="soon" .` + "\n", `h:2: field "SUBMIT_TIME": want a whole number`},
		{"a value without its closing quote", head + `Job JOBID="job_1" SUBMIT_TIME="1" .` + "\n" + `Task TASKID="t .` + "\n", `h:3: job job_1, field "TASKID": a value without its closing quote`},
		{"not KEY=value", head + `Job JOBID .` + "\n", `h:2: want KEY="value" pairs`},
		{"broken counters", head + `Job JOBID="job_1" SUBMIT_TIME="1" .` + "\n" + `Task TASKID="t" TASK_TYPE="MAP" TASK_STATUS="SUCCESS" FINISH_TIME="2" COUNTERS="{(g)(g)[(HDFS_BYTES_READ)(x)(many)]}" .` + "\n",
			`h:3: job job_1, field "COUNTERS": counter HDFS_BYTES_READ: value "many"`},
		{"an attempt without its id", head + `Job JOBID="job_1" SUBMIT_TIME="1" .` + "\n" + `MapAttempt TASK_TYPE="MAP" TASKID="t" START_TIME="2" .` + "\n", `h:3: job job_1, t, field "attemptId"`},
		{"no job", head, "no JOB_SUBMITTED"},
		{"a value left open over many lines", head + `Job JOBID="job_1" SUBMIT_TIME="1" JOBNAME="x .` + strings.Repeat("\ny .", 200000) + "\n",
			`h:2: field "JOBNAME": a value without its closing quote`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ScanJhist(strings.NewReader(tc.in), "h", func(*Job) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one holding %q", err, tc.want)
			}
		})
	}
}

// TestMR1RecordOverLines: a value holding a line break, even one that
// ends its line in " .", runs on until the record's own end.
func TestMR1RecordOverLines(t *testing.T) {
	in := MR1HistoryMagic + "\n" + `Job JOBID="job_1" JOBNAME="a .` + "\n" + `b" SUBMIT_TIME="5" .` + "\n"
	var got *Job
	if err := ScanJhist(strings.NewReader(in), "h", func(j *Job) error { got = j; return nil }); err != nil {
		t.Fatal(err)
	}
	if got.Name != "a .\nb" || got.Submit != 5 {
		t.Errorf("job name %q, submit %d; want the two lines of the quoted name, and the submit time after them", got.Name, got.Submit)
	}
}

// TestMR1UnfinishedAttemptsHost: an attempt the history saw start and
// not end runs on its tracker's host, tracker_<host>:<address>:<port> in
// Hadoop 1, not on a host named by the whole tracker name.
func TestMR1UnfinishedAttemptsHost(t *testing.T) {
	in := MR1HistoryMagic + "\n" + `Job JOBID="job_1" SUBMIT_TIME="1" .` + "\n" +
		`MapAttempt TASK_TYPE="MAP" TASKID="task_1_m_000000" TASK_ATTEMPT_ID="attempt_1_m_000000_0" START_TIME="2" TRACKER_NAME="tracker_node3:localhost/127\.0\.0\.1:40003" HTTP_PORT="50060" .` + "\n"
	var got *Job
	if err := ScanJhist(strings.NewReader(in), "h", func(j *Job) error { got = j; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got.Maps) != 1 || got.Maps[0].Attempts[0].Loc.Host != "node3" {
		t.Errorf("maps %+v; want one attempt on node3, its tracker's host", got.Maps)
	}
}

// TestMR1Counters reads the compact counters string by its grammar, its
// backslash escapes included.
func TestMR1Counters(t *testing.T) {
	got := map[string]int64{}
	err := mr1Counters(`{(FileSystemCounters)(FileSystemCounters)[(HDFS_BYTES_READ)(HDFS_BYTES_READ)(42)]}{(a\(b\))(Job Counters )[(X\]Y)(d)(-7)][(Z)(e)(0)]}`,
		func(name string, v int64) { got[name] = v })
	if want := map[string]int64{"HDFS_BYTES_READ": 42, "X]Y": -7, "Z": 0}; err != nil || !maps.Equal(got, want) {
		t.Errorf("counters %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"{", "{(g)", "{(g)(d)[(n)(d)(1)", "[(n)(d)(1)]", "{(g)(d)[(n)(d)(1)]"} {
		if err := mr1Counters(bad, func(string, int64) {}); err == nil {
			t.Errorf("mr1Counters(%q): no error; want one, the string is cut short", bad)
		}
	}
}

// TestJobConfiguration: a job's configuration, the <job id>_conf.xml the
// job history server keeps beside its history or a Rumen job's
// jobProperties, gives a task's memory where the trace records none, and
// the properties a reader is asked to keep, their ${var} references
// expanded as Hadoop's Configuration expands them.
func TestJobConfiguration(t *testing.T) {
	keep := []string{"mapred.fairscheduler.pool", "pool.name", "user.name"}
	var jobs []*Job
	if err := ScanPathKeeping("../../examples/hadoop/history-mr1", "", keep, func(j *Job) error { jobs = append(jobs, j); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 {
		t.Fatalf("%d jobs; want the example's 2", len(jobs))
	}
	if j := jobs[0]; j.MapMB != 1536 || j.ReduceMB != 3072 || !maps.Equal(j.Conf, map[string]string{"mapred.fairscheduler.pool": "prod.etl", "user.name": "alice"}) {
		t.Errorf("job 1: memory %d/%d MB, conf %v; want 1536/3072 (mapred.job.*.memory.mb) and its explicit pool and user", j.MapMB, j.ReduceMB, j.Conf)
	}
	if j := jobs[1]; j.MapMB != Unknown || !maps.Equal(j.Conf, map[string]string{"pool.name": "dev", "user.name": "dave"}) {
		t.Errorf("job 2: map memory %d, conf %v; want none recorded, and pool.name ${team} expanded to dev", j.MapMB, j.Conf)
	}
	for dir, want := range map[string]int{"history-mr1": 2, "history": 0} {
		if s, err := StatsOf("../../examples/hadoop/"+dir, ""); err != nil || s.Configured != want {
			t.Errorf("%s: %d job configurations counted, %v; want %d, the _conf.xml files beside its histories", dir, s.Configured, err, want)
		}
	}
	jobs = nil
	if err := ScanPath("../../examples/hadoop/history-mr1", "", func(j *Job) error { jobs = append(jobs, j); return nil }); err != nil || jobs[0].Conf != nil || jobs[0].MapMB != 1536 {
		t.Errorf("without properties to keep: conf %v, map memory %d, %v; want no conf kept, the memory read all the same", jobs[0].Conf, jobs[0].MapMB, err)
	}

	rumen := `{"jobID":"job_1","submitTime":1,"jobProperties":{"mapreduce.map.memory.mb":"2048","mapred.job.reduce.memory.mb":"4096","team":"ads","pool.name":"${team}-${missing}","n":3}}`
	var got *Job
	if err := scanRumen(strings.NewReader(rumen), "r.json", keep, func(j *Job) error { got = j; return nil }); err != nil {
		t.Fatal(err)
	}
	if got.MapMB != 2048 || got.ReduceMB != 4096 || !maps.Equal(got.Conf, map[string]string{"pool.name": "ads-${missing}"}) {
		t.Errorf("rumen: memory %d/%d, conf %v; want 2048/4096 from jobProperties and pool.name with the reference it can resolve expanded", got.MapMB, got.ReduceMB, got.Conf)
	}
	withMB := `{"jobID":"job_1","jobMapMB":512,"jobProperties":{"mapreduce.map.memory.mb":"2048"}}`
	if err := scanRumen(strings.NewReader(withMB), "r.json", nil, func(j *Job) error { got = j; return nil }); err != nil || got.MapMB != 512 {
		t.Errorf("rumen with jobMapMB: map memory %d, %v; want 512, the trace's own record over its configuration", got.MapMB, err)
	}

	for _, tc := range []struct{ name, conf, want string }{
		{"not XML", "<configuration><property>", "job_201311010000_0001_conf.xml:1: a job configuration file"},
		{"memory that is not a number", "<configuration><property><name>mapred.job.map.memory.mb</name><value>lots</value></property></configuration>",
			`job_201311010000_0001_conf.xml: job job_201311010000_0001, mapred.job.map.memory.mb: "lots" is not a whole number`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			hist, err := os.ReadFile("../../examples/hadoop/history-mr1/job_201311010000_0001_1383264001000_alice_daily-etl")
			if err != nil {
				t.Fatal(err)
			}
			testfile.Write(t, filepath.Join(dir, "job_201311010000_0001_1383264001000_alice_daily-etl"), hist)
			testfile.Write(t, filepath.Join(dir, "job_201311010000_0001_conf.xml"), tc.conf)
			err = ScanPath(dir, "", func(*Job) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one holding %q", err, tc.want)
			}
		})
	}
}
