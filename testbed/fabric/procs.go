package fabric

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// pidsIn lists the processes whose network namespace is one of ids, from
// /proc/PID/ns/net (the process's main thread). The calling process is never
// listed: its threads only visit the fabric's namespaces.
func pidsIn(ids map[nsID]bool) ([]int, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	self := os.Getpid()
	var pids []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		// A process that exited, or a zombie, no longer has a namespace.
		id, err := nsIDOf("/proc/" + name + "/ns/net")
		if err == nil && ids[id] {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// killIn sends SIGKILL to every process in the namespaces ids and waits until
// none is left or the timeout passes. It signals through a pidfd after
// checking the namespace again, so a recycled pid is never hit. It returns the
// pids it killed.
func killIn(ids map[nsID]bool, timeout time.Duration) ([]int, error) {
	deadline := time.Now().Add(timeout)
	var killed []int
	seen := map[int]bool{}
	for {
		pids, err := pidsIn(ids)
		if err != nil {
			return killed, fmt.Errorf("fabric: list processes: %w", err)
		}
		if len(pids) == 0 {
			return killed, nil
		}
		if time.Now().After(deadline) {
			return killed, fmt.Errorf("fabric: processes %v still in the fabric's namespaces after %v", pids, timeout)
		}
		for _, pid := range pids {
			if err := killPid(pid, ids); err != nil {
				return killed, err
			}
			if !seen[pid] {
				seen[pid] = true
				killed = append(killed, pid)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// killPid kills pid if, seen through a pidfd, it is still in one of ids.
func killPid(pid int, ids map[nsID]bool) error {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return nil
		}
		if errors.Is(err, unix.ENOSYS) { // kernels before 5.3
			return ignoreGone(unix.Kill(pid, unix.SIGKILL))
		}
		return fmt.Errorf("fabric: pidfd_open %d: %w", pid, err)
	}
	defer unix.Close(fd)
	// The pidfd pins this process: if /proc/PID still shows one of our
	// namespaces now, it is the process we listed, not a successor.
	if id, err := nsIDOf("/proc/" + strconv.Itoa(pid) + "/ns/net"); err != nil || !ids[id] {
		return nil
	}
	return ignoreGone(unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0))
}

func ignoreGone(err error) error {
	if err == nil || errors.Is(err, unix.ESRCH) {
		return nil
	}
	return fmt.Errorf("fabric: kill: %w", err)
}
