//go:build linux

package host

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Taskstats reads a process's delay accounting from the kernel's
// taskstats generic-netlink family (Documentation/accounting/taskstats.rst):
// the time its threads waited for a CPU, for block I/O, for swap-in, for
// reclaim (freepages), on thrashing (refaults of recently evicted pages)
// and in compaction, each measured by the kernel with its clock, not by
// sampling ticks. The delays are counted only while kernel.task_delayacct
// is 1 (EnableDelayacct).
type Taskstats struct {
	fd     int
	family uint16
	seq    uint32
	buf    []byte
}

// TaskDelays is one process's (all its threads', live and exited) totals.
type TaskDelays struct {
	CPU, Blkio, Swapin, Freepages, Thrashing, Compact time.Duration
	// Run is the time on a CPU as the scheduler counts it (the threads'
	// sum_exec_runtime, cpu_run_virtual_total), not the tick-sampled
	// utime+stime that cpu_run_real_total holds.
	Run       time.Duration
	User, Sys time.Duration // tick-sampled, like /proc
}

// Memory is the time the process waited on memory: swap-in, reclaim,
// thrashing and compaction.
func (d TaskDelays) Memory() time.Duration { return d.Swapin + d.Freepages + d.Thrashing + d.Compact }

// Add sums two processes' delays.
func (d TaskDelays) Add(o TaskDelays) TaskDelays {
	return TaskDelays{CPU: d.CPU + o.CPU, Blkio: d.Blkio + o.Blkio, Swapin: d.Swapin + o.Swapin,
		Freepages: d.Freepages + o.Freepages, Thrashing: d.Thrashing + o.Thrashing, Compact: d.Compact + o.Compact,
		Run: d.Run + o.Run, User: d.User + o.User, Sys: d.Sys + o.Sys}
}

// OpenTaskstats opens a netlink socket and resolves the family.
func OpenTaskstats() (*Taskstats, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_GENERIC)
	if err != nil {
		return nil, fmt.Errorf("taskstats: netlink socket: %w", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("taskstats: bind: %w", err)
	}
	tv := unix.NsecToTimeval(int64(2 * time.Second))
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	t := &Taskstats{fd: fd, buf: make([]byte, 1<<16)}
	name := append([]byte(unix.TASKSTATS_GENL_NAME), 0)
	msgs, err := t.request(unix.GENL_ID_CTRL, unix.CTRL_CMD_GETFAMILY, unix.CTRL_ATTR_FAMILY_NAME, name)
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("taskstats: resolving the family: %w", err)
	}
	for _, a := range attrs(msgs) {
		if a.typ == unix.CTRL_ATTR_FAMILY_ID && len(a.data) >= 2 {
			t.family = binary.NativeEndian.Uint16(a.data)
		}
	}
	if t.family == 0 {
		t.Close()
		return nil, errors.New("taskstats: the kernel has no TASKSTATS family (CONFIG_TASKSTATS)")
	}
	return t, nil
}

// Close closes the socket.
func (t *Taskstats) Close() error {
	if t == nil || t.fd < 0 {
		return nil
	}
	err := unix.Close(t.fd)
	t.fd = -1
	return err
}

// TGID returns the totals of process tgid (its threads, with those that
// exited).
func (t *Taskstats) TGID(tgid int) (TaskDelays, error) {
	var pid [4]byte
	binary.NativeEndian.PutUint32(pid[:], uint32(tgid))
	payload, err := t.request(t.family, unix.TASKSTATS_CMD_GET, unix.TASKSTATS_CMD_ATTR_TGID, pid[:])
	if err != nil {
		return TaskDelays{}, err
	}
	for _, a := range attrs(payload) {
		if a.typ != unix.TASKSTATS_TYPE_AGGR_TGID {
			continue
		}
		for _, n := range parseAttrs(a.data) {
			if n.typ == unix.TASKSTATS_TYPE_STATS {
				return delaysOf(n.data), nil
			}
		}
	}
	return TaskDelays{}, fmt.Errorf("taskstats: no statistics for process %d", tgid)
}

// delaysOf reads the fields it needs from struct taskstats: the kernel's
// may be longer (newer) or shorter (older) than x/sys/unix's.
func delaysOf(b []byte) TaskDelays {
	var s unix.Taskstats
	n := min(len(b), int(unsafe.Sizeof(s)))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&s)), unsafe.Sizeof(s)), b[:n])
	d := TaskDelays{CPU: time.Duration(s.Cpu_delay_total), Blkio: time.Duration(s.Blkio_delay_total),
		Swapin: time.Duration(s.Swapin_delay_total), Run: time.Duration(s.Cpu_run_virtual_total),
		User: time.Duration(s.Ac_utime) * time.Microsecond, Sys: time.Duration(s.Ac_stime) * time.Microsecond}
	// Fields past the first version's are there only when the kernel's
	// struct reaches them.
	has := func(off uintptr, size uintptr) bool { return uintptr(n) >= off+size }
	if has(unsafe.Offsetof(s.Thrashing_delay_total), 8) {
		d.Freepages = time.Duration(s.Freepages_delay_total)
		d.Thrashing = time.Duration(s.Thrashing_delay_total)
	}
	if has(unsafe.Offsetof(s.Compact_delay_total), 8) {
		d.Compact = time.Duration(s.Compact_delay_total)
	}
	return d
}

// request sends one generic-netlink request and returns the payload after
// the genl header of its answer.
func (t *Taskstats) request(family uint16, cmd uint8, attr uint16, value []byte) ([]byte, error) {
	t.seq++
	alen := unix.NLA_HDRLEN + len(value)
	msg := make([]byte, unix.NLMSG_HDRLEN+unix.GENL_HDRLEN+nlaAlign(alen))
	binary.NativeEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.NativeEndian.PutUint16(msg[4:], family)
	binary.NativeEndian.PutUint16(msg[6:], unix.NLM_F_REQUEST)
	binary.NativeEndian.PutUint32(msg[8:], t.seq)
	binary.NativeEndian.PutUint32(msg[12:], uint32(os.Getpid()))
	g := msg[unix.NLMSG_HDRLEN:]
	g[0], g[1] = cmd, 1
	a := g[unix.GENL_HDRLEN:]
	binary.NativeEndian.PutUint16(a[0:], uint16(alen))
	binary.NativeEndian.PutUint16(a[2:], attr)
	copy(a[unix.NLA_HDRLEN:], value)
	if err := unix.Sendto(t.fd, msg, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, err
	}
	for {
		n, _, err := unix.Recvfrom(t.fd, t.buf, 0)
		if err != nil {
			return nil, err
		}
		msgs, err := syscall.ParseNetlinkMessage(t.buf[:n])
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			if m.Header.Seq != t.seq {
				continue
			}
			if m.Header.Type == unix.NLMSG_ERROR {
				if len(m.Data) >= 4 {
					if code := int32(binary.NativeEndian.Uint32(m.Data)); code != 0 {
						return nil, unix.Errno(-code)
					}
				}
				return nil, errors.New("netlink error")
			}
			if len(m.Data) < unix.GENL_HDRLEN {
				return nil, errors.New("short generic-netlink answer")
			}
			return append([]byte(nil), m.Data[unix.GENL_HDRLEN:]...), nil
		}
	}
}

type nlAttr struct {
	typ  uint16
	data []byte
}

func attrs(b []byte) []nlAttr { return parseAttrs(b) }

func parseAttrs(b []byte) []nlAttr {
	var out []nlAttr
	for len(b) >= unix.NLA_HDRLEN {
		l := int(binary.NativeEndian.Uint16(b[0:]))
		typ := binary.NativeEndian.Uint16(b[2:]) &^ (unix.NLA_F_NESTED | unix.NLA_F_NET_BYTEORDER)
		if l < unix.NLA_HDRLEN || l > len(b) {
			break
		}
		out = append(out, nlAttr{typ, b[unix.NLA_HDRLEN:l]})
		b = b[min(nlaAlign(l), len(b)):]
	}
	return out
}

func nlaAlign(n int) int { return (n + unix.NLA_ALIGNTO - 1) &^ (unix.NLA_ALIGNTO - 1) }

// DelayacctSysctl is the switch for delay accounting.
const DelayacctSysctl = "/proc/sys/kernel/task_delayacct"

// EnableDelayacct turns delay accounting on, journaled so that the
// journal's undo (or memplan probe cleanup) turns it off again; it
// reports whether it was already on.
func EnableDelayacct(h Host, j *Journal) (bool, error) {
	old, err := ReadString(h, DelayacctSysctl)
	if err != nil {
		return false, fmt.Errorf("delay accounting: %w", err)
	}
	old = strings.TrimSpace(old)
	if old == "1" {
		return true, nil
	}
	if _, err := j.Record(Entry{Op: OpWrite, Path: DelayacctSysctl, Old: old, New: "1"}); err != nil {
		return false, err
	}
	if err := WriteString(h, DelayacctSysctl, "1"); err != nil {
		return false, fmt.Errorf("turning delay accounting on: %w", err)
	}
	return false, nil
}
