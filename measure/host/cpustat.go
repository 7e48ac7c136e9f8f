//go:build linux

package host

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/memplan/memplan/measure"
)

// clockTick is USER_HZ, the unit of /proc/stat: 100 on every Linux
// architecture memplan runs on (the kernel's ABI fixes it for user space).
const clockTick = 100

// parseCPUStat reads the aggregate "cpu" line of /proc/stat (proc(5)):
// busy time is user + nice + system + irq + softirq (guest time is already
// inside user), idle is idle + iowait; and counts the per-CPU lines.
func parseCPUStat(file string, r io.Reader) (measure.CPUTimes, error) {
	var t measure.CPUTimes
	sc := bufio.NewScanner(r)
	n, seen := 0, false
	for sc.Scan() {
		n++
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			t.CPUs++
			continue
		}
		if len(f) < 9 {
			return t, parseErr(file, n, line, "expected cpu user nice system idle iowait irq softirq steal")
		}
		var v [8]float64
		for i := range v {
			x, err := strconv.ParseUint(f[i+1], 10, 64)
			if err != nil {
				return t, parseErr(file, n, line, fmt.Sprintf("field %d is not a count of clock ticks", i+1))
			}
			v[i] = float64(x) / clockTick
		}
		t.Busy = v[0] + v[1] + v[2] + v[5] + v[6]
		t.Idle = v[3] + v[4]
		t.Steal = v[7]
		seen = true
	}
	if err := sc.Err(); err != nil {
		return t, err
	}
	if !seen {
		return t, parseErr(file, n, "", "no aggregate \"cpu\" line")
	}
	return t, nil
}

// ReadCPUTimes reads the host's CPU time so far (/proc/stat), and that of
// its reclaim and I/O kernel threads (ReclaimThreads).
func ReadCPUTimes(h Host) (measure.CPUTimes, error) {
	b, err := h.ReadFile("/proc/stat")
	if err != nil {
		return measure.CPUTimes{}, err
	}
	t, err := parseCPUStat("/proc/stat", bytes.NewReader(b))
	if err != nil {
		return t, err
	}
	t.Reclaim = ReclaimThreads(h)
	return t, nil
}

// pfKthread is PF_KTHREAD, the flag /proc/PID/stat's ninth field carries
// for a kernel thread (include/linux/sched.h).
const pfKthread = 0x00200000

// reclaimThread says whether a kernel thread's name is one that reclaims
// memory, compacts it or runs block I/O and writeback work (kswapd0,
// kcompactd0, kworker/u8:2-flush-254:0): what a job's swapping puts on
// the host besides its own time. Other kernel threads (ksoftirqd, nfsd,
// filesystems' workers) are left to count as other work.
func reclaimThread(name string) bool {
	for _, p := range []string{"kswapd", "kcompactd", "kworker"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// ReclaimThreads reads the CPU time so far, in seconds, of every reclaim
// and I/O kernel thread (reclaimThread), by PID; nil when /proc cannot be
// listed. A thread that exits while it is read is skipped.
func ReclaimThreads(h Host) map[int]float64 {
	ents, err := h.ReadDir("/proc")
	if err != nil {
		return nil
	}
	out := map[int]float64{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid <= 0 {
			continue
		}
		b, err := h.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if st, ok := parseProcStat(b); ok && st.kthread && reclaimThread(st.name) {
			out[pid] = st.cpu
		}
	}
	return out
}

// procStat is what memplan reads of a /proc/PID/stat line.
type procStat struct {
	name    string
	kthread bool
	cpu     float64 // user + system, seconds
}

// parseProcStat reads a /proc/PID/stat line: the command name, whether it
// is a kernel thread and its user + system time. The name, in
// parentheses, may hold spaces and parentheses itself, so the fields are
// counted from its last closing parenthesis.
func parseProcStat(b []byte) (procStat, bool) {
	open, i := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || i < open {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is the state (field 3), so field n is f[n-3].
	if len(f) < 13 {
		return procStat{}, false
	}
	flags, err1 := strconv.ParseUint(f[6], 10, 64)
	ut, err2 := strconv.ParseUint(f[11], 10, 64)
	st, err3 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil {
		return procStat{}, false
	}
	return procStat{name: string(b[open+1 : i]), kthread: flags&pfKthread != 0, cpu: float64(ut+st) / clockTick}, true
}

// parseSchedstat reads /proc/PID/schedstat: time on a CPU, time waiting on
// a run queue (run_delay), and time slices, in nanoseconds.
func parseSchedstat(file string, b []byte) (onCPU, waited time.Duration, err error) {
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, 0, parseErr(file, 1, strings.TrimSpace(string(b)), "expected \"cputime_ns run_delay_ns timeslices\"")
	}
	c, err1 := strconv.ParseInt(f[0], 10, 64)
	w, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, parseErr(file, 1, strings.TrimSpace(string(b)), "expected two counts of nanoseconds")
	}
	return time.Duration(c), time.Duration(w), nil
}

// ReadRunDelay reads how long process pid has waited for a CPU so far
// (/proc/PID/schedstat's run_delay; the kernel keeps it with
// CONFIG_SCHED_INFO, on by default).
func ReadRunDelay(h Host, pid int) (time.Duration, error) {
	name := fmt.Sprintf("/proc/%d/schedstat", pid)
	b, err := h.ReadFile(name)
	if err != nil {
		return 0, err
	}
	_, w, err := parseSchedstat(name, b)
	return w, err
}

// ReadOwnRunDelay is ReadRunDelay for the calling thread's process, read
// without a Host: the workload child reports its own.
func ReadOwnRunDelay() (time.Duration, error) {
	return ReadRunDelay(NewOSHost(), os.Getpid())
}
