#!/bin/sh
# Chaos cases on a full-length testbed scenario (docs/testbed.md, What it
# survives): faults no scenario configures, injected from outside a run as a
# cluster meets them, each checked for its outcome.
#
#   sudo testbed/chaos/chaos.sh MRSCHED CONFIG OUTDIR CASE [AT_S]
#
# MRSCHED is the mrsched binary, CONFIG a testbed scenario (for instance
# examples/testbed/small.yaml), OUTDIR the run's output directory (replaced
# if it holds an earlier run; the run's standard error goes to OUTDIR.stderr), AT_S
# the wall seconds after the workers start at which the fault strikes
# (default 25). CASE is one of
#
#   reset    ss -K every established data-plane connection, once there
#            is one
#   outage   blackhole one node's port 50060 (its packets to a class that
#            forwards 8 bit/s) for 40 s
#   kill     SIGKILL one worker
#   freeze   SIGSTOP one worker for 96 s, then SIGCONT (on small.yaml, give
#            AT_S 3: the node expires 60 s later, before the run would end)
#   killrun  SIGKILL mrsched testbed itself, then mrsched testbed clean
#   foreign  ip netns add on the host (in a private mount namespace, where
#            /run/netns is not yet a mount point, as on a host where ip netns
#            add never ran)
#
# It prints the run's exit status, wall time, lost nodes, fetch failures and
# re-executions, whether every checksum was right, and what was left behind
# (namespaces of the run, processes, work directories); it exits 1 if the
# case's expected outcome did not happen.
set -u
MRSCHED=$1 CONFIG=$2 OUT=$3 CASE=$4 AT=${5:-25}
# The run's standard error goes beside OUTDIR: mrsched testbed refuses an
# output directory that holds anything but an earlier run (-force replaces
# one, so a case can be taken again into the same OUTDIR).
ERR="$OUT.stderr"
fail=0

runid() { sed -n 's/.*"run_id": "\([^"]*\)".*/\1/p' "$OUT/testbed.json" 2>/dev/null | head -1; }
workers() { pgrep -P "$1" -f "testbed worker"; }

start() {
	"$MRSCHED" testbed -q -force -config "$CONFIG" -out "$OUT" 2>"$ERR" &
	PID=$!
	i=0
	while [ $i -lt 600 ] && [ "$(workers $PID | wc -l)" -eq 0 ]; do sleep 0.1; i=$((i + 1)); done
	T0=$(date +%s)
	sleep "$AT"
}

finish() {
	wait $PID
	RC=$?
	echo "case $CASE: exit status $RC after $(($(date +%s) - T0)) s from the workers' start"
	if [ -f "$OUT/testbed.json" ]; then
		python3 - "$OUT/testbed.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("wall_s %.1f; checksums_ok %s; jobs %d completed of %d" % (r.get("wall_s", 0), r.get("checksums_ok"),
      sum(j["status"] == "completed" for j in r.get("jobs") or []), len(r.get("jobs") or [])))
print("lost nodes", r.get("lost_nodes"), "; losses", r.get("node_losses"))
print("worker events", r.get("worker_events"))
print("fetch failures", len(r.get("fetch_failures") or []), "; re-executions for them", len(r.get("fetch_failure_reexecutions") or []),
      "; failed attempts", len(r.get("failed_attempts") or []))
if r.get("error"): print("error:", r["error"][:2000])
if r.get("teardown"): print("teardown:", r["teardown"])
PY
	fi
	id=$(runid)
	left=$(ls /run/netns 2>/dev/null | grep "^mrs${id:-none}-")
	procs=$(pgrep -f "testbed worker" | wc -l)
	echo "left behind: namespaces [${left}] worker processes $procs"
	[ -z "$left" ] || fail=1
	# Every case that waits for the run wants it to succeed.
	[ $RC -eq 0 ] || fail=1
}

case $CASE in
reset)
	start
	# Until a connection was there to reset (they are short), at most 10 s.
	i=0 n=0
	while [ $i -lt 50 ] && [ $n -eq 0 ]; do
		for p in $(workers $PID); do
			k=$(ip netns exec "$(ip netns identify "$p")" ss -K -t state established '( sport = :50060 or dport = :50060 )' | tail -n +2 | wc -l)
			n=$((n + k))
		done
		[ $n -gt 0 ] || sleep 0.2
		i=$((i + 1))
	done
	echo "reset $n connection ends (each socket of a connection counts)"
	finish
	;;
outage)
	start
	ns=$(ip netns identify "$(workers $PID | head -1)")
	ip netns exec "$ns" tc class add dev eth0 parent 1: classid 1:99 htb rate 8bit ceil 8bit
	ip netns exec "$ns" tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip sport 50060 0xffff flowid 1:99
	ip netns exec "$ns" tc filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dport 50060 0xffff flowid 1:99
	echo "blackholed port 50060 of $ns"
	sleep 40
	ip netns exec "$ns" tc filter del dev eth0 parent 1: prio 1
	finish
	;;
kill)
	start
	w=$(workers $PID | head -2 | tail -1)
	echo "killing worker $w in $(ip netns identify "$w")"
	kill -KILL "$w"
	finish
	grep -q '"lost_nodes"' "$OUT/testbed.json" || fail=1
	;;
freeze)
	start
	w=$(workers $PID | head -3 | tail -1)
	echo "freezing worker $w in $(ip netns identify "$w") for 96 s"
	kill -STOP "$w"
	sleep 96
	kill -CONT "$w"
	finish
	grep -q '"lost_nodes"' "$OUT/testbed.json" || fail=1
	;;
killrun)
	start
	kill -KILL $PID
	wait $PID
	sleep 1
	echo "after SIGKILL: $(ls /run/netns | grep -c '^mrs') fabric namespaces, $(pgrep -f 'testbed worker' | wc -l) workers"
	"$MRSCHED" testbed clean || fail=1
	left=$(ls /run/netns 2>/dev/null | grep '^mrs')
	echo "after clean: namespaces [$left], $(pgrep -f 'testbed worker' | wc -l) workers, work dirs [$(ls -d /tmp/mrsched-testbed-* 2>/dev/null)]"
	[ -z "$left" ] || fail=1
	;;
foreign)
	unshare -m --propagation private sh -c '
		umount /run/netns 2>/dev/null
		"$0" "$1" "$2" "$3" foreign-inner "$4"' "$0" "$MRSCHED" "$CONFIG" "$OUT" "$AT"
	exit $?
	;;
foreign-inner)
	start
	ip netns add "mrschaos-$$" && echo "added namespace mrschaos-$$"
	finish
	ip netns del "mrschaos-$$"
	;;
*)
	echo "unknown case $CASE" >&2
	exit 2
	;;
esac
exit $fail
