package hadooptrace

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// writeRumen writes a Rumen trace of jobs jobs of tasksPerJob maps each
// (and a reduce), every task with one attempt carrying the counters,
// locations and resource-usage lists Hadoop 2's TraceBuilder writes, so
// that a task is about as long as in a real trace (1.5 kB).
func writeRumen(w io.Writer, jobs, tasksPerJob int) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	usage := `"clockSplits":[7478,3514,19535,668,667,668,1187,4227,10,9,9,10],"cpuUsages":[3282,1174,2616,66,67,66,201,636,110,111,110,111],` +
		`"physMemKbytes":[114780,267667,272654,274271,274272,274271,274272,274402,275234,276170,277106,278043],` +
		`"vmemKbytes":[2312892,5412666,5488344,5486127,5486128,5486127,5486128,5486127,5486128,5486128,5486127,5486128]`
	for j := range jobs {
		fmt.Fprintf(bw, `{"jobID":"job_1_%06d","user":"user%d","queue":"q%d","outcome":"SUCCESS","submitTime":%d,"launchTime":%d,"finishTime":%d,"mapTasks":[`,
			j, j%30, j%3, 1000*j, 1000*j+500, 1000*j+90000)
		for m := range tasksPerJob {
			if m > 0 {
				bw.WriteByte(',')
			}
			host := "/rack" + strconv.Itoa(m%20) + "/node" + strconv.Itoa(m%400)
			fmt.Fprintf(bw, `{"taskID":"task_1_%06d_m_%06d","taskType":"MAP","inputBytes":134217728,"outputBytes":1000,"startTime":%d,"finishTime":%d,"taskStatus":"SUCCESS",`+
				`"preferredLocations":[{"layers":["rack%d","node%d"]},{"layers":["rack%d","node%d"]}],"attempts":[{"attemptID":"attempt_1_%06d_m_%06d_0","result":"SUCCESS","startTime":%d,"finishTime":%d,`+
				`"hostName":"%s","hdfsBytesRead":134217728,"hdfsBytesWritten":-1,"fileBytesRead":0,"fileBytesWritten":1000,"mapInputRecords":10,"mapOutputBytes":-1,"mapOutputRecords":0,"combineInputRecords":-1,`+
				`"reduceInputGroups":-1,"reduceInputRecords":-1,"reduceShuffleBytes":-1,"reduceOutputRecords":-1,"spilledRecords":0,"shuffleFinished":-1,"sortFinished":-1,"location":{"layers":["rack%d","node%d"]},%s,`+
				`"resourceUsageMetrics":{"cumulativeCpuUsage":8550,"virtualMemoryUsage":5617795072,"physicalMemoryUsage":285196288,"heapUsage":558891008}}]}`,
				j, m, 1000*j+600, 1000*j+30000, m%20, m%400, (m+1)%20, (m+1)%400, j, m, 1000*j+600, 1000*j+30000, host, m%20, m%400, usage)
		}
		fmt.Fprintf(bw, `],"reduceTasks":[{"taskID":"task_1_%06d_r_000000","taskType":"REDUCE","inputBytes":5000,"attempts":[{"result":"SUCCESS","hostName":"/rack1/node1","startTime":1,"finishTime":2,"reduceShuffleBytes":5000,"hdfsBytesWritten":4000}]}],"otherTasks":[]}`+"\n", j)
	}
	return bw.Flush()
}

// BenchmarkScanRumen reads a generated Rumen trace of 20,000 tasks per
// iteration; MRSCHED_BENCH_TASKS sets another size (1000000 for the
// figure docs/inputs.md quotes).
func BenchmarkScanRumen(b *testing.B) {
	tasks := 20000
	if s := os.Getenv("MRSCHED_BENCH_TASKS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 100 {
			b.Fatalf("MRSCHED_BENCH_TASKS=%q: want a number of tasks, 100 or more", s)
		}
		tasks = n
	}
	path := filepath.Join(b.TempDir(), "trace.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeRumen(f, tasks/100, 100); err != nil {
		b.Fatal(err)
	}
	st, _ := f.Stat()
	f.Close()
	b.SetBytes(st.Size())
	b.ResetTimer()
	for range b.N {
		s, err := StatsOf(path, "")
		if err != nil {
			b.Fatal(err)
		}
		if s.Maps != int64(tasks/100*100) {
			b.Fatalf("%d maps; want %d", s.Maps, tasks/100*100)
		}
	}
}

// TestWriteRumenReadsBack checks the generator the benchmark reads.
func TestWriteRumenReadsBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeRumen(f, 3, 10); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err := StatsOf(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if s.Jobs != 3 || s.Maps != 30 || s.Reduces != 3 || s.InputBytes != 30*134217728 || s.Hosts != 10 {
		t.Errorf("generated trace read as %+v; want 3 jobs, 30 maps of 128 MiB, 3 reduces, 10 hosts (the reduce shares node1)", s)
	}
}

// TestWriteBenchFile lets the benchmark's generator write a file for timing the
// command: MRSCHED_WRITE_RUMEN=path MRSCHED_BENCH_TASKS=n go test -run
// TestWriteBenchFile.
func TestWriteBenchFile(t *testing.T) {
	path := os.Getenv("MRSCHED_WRITE_RUMEN")
	if path == "" {
		t.Skip("MRSCHED_WRITE_RUMEN not set")
	}
	n, err := strconv.Atoi(os.Getenv("MRSCHED_BENCH_TASKS"))
	if err != nil || n < 100 {
		t.Fatalf("MRSCHED_BENCH_TASKS: want a number of tasks, 100 or more")
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := writeRumen(f, n/100, 100); err != nil {
		t.Fatal(err)
	}
}
