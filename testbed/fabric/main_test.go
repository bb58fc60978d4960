package fabric

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"
)

// helperEnv switches the test binary into a helper mode, for tests that need
// another process: one to SIGKILL, one with fewer privileges, one to run in a
// node's namespace.
const helperEnv = "FABRIC_TEST_HELPER"

func TestMain(m *testing.M) {
	switch mode := os.Getenv(helperEnv); mode {
	case "":
		os.Exit(m.Run())
	case "sleep":
		// Stands for a worker: it lives until killed.
		time.Sleep(time.Hour)
		os.Exit(0)
	case "build":
		helperBuild()
	case "privileges":
		helperPrivileges()
	default:
		fmt.Fprintf(os.Stderr, "unknown %s=%s\n", helperEnv, mode)
		os.Exit(2)
	}
}

// helperBuild builds a fabric for run FABRIC_TEST_RUN, starts a long-lived
// process in each node that outlives this one (no Pdeathsig), says "ready",
// and waits to be killed.
func helperBuild() {
	f, err := Build(context.Background(), Spec{RunID: os.Getenv("FABRIC_TEST_RUN"), Racks: 2, NodesPerRack: 1,
		NICBitsPerSec: 100e6, UplinkBitsPerSec: 100e6})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	var pids []int
	for n := range 2 {
		cmd := helperCmd("sleep")
		if err := f.Start(n, cmd); err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		pids = append(pids, cmd.Process.Pid)
	}
	b, _ := json.Marshal(pids)
	fmt.Printf("ready %s\n", b)
	time.Sleep(time.Hour)
}

// privilegeResult is what helperPrivileges reports.
type privilegeResult struct {
	Check, Build string
}

// helperPrivileges reports what CheckPrivileges and Build say in this
// process, which the test started with fewer privileges.
func helperPrivileges() {
	var r privilegeResult
	if err := CheckPrivileges(); err != nil {
		r.Check = err.Error()
	}
	f, err := Build(context.Background(), Spec{RunID: os.Getenv("FABRIC_TEST_RUN"), Racks: 1, NodesPerRack: 1,
		NICBitsPerSec: 1e6, UplinkBitsPerSec: 1e6})
	if err != nil {
		r.Build = err.Error()
	} else {
		f.Close()
	}
	json.NewEncoder(os.Stdout).Encode(r)
	os.Exit(0)
}
