//go:build linux

// Command qd1path takes memplan's queue-depth-1 read loop apart from the
// device: it runs the same 4 KiB O_DIRECT random-read loop written four
// ways (Go on an unlocked goroutine, as memplan's loop was; Go locked to
// its OS thread; Go with a raw system call; C) and fio's psync job on one
// file, in shuffled order round after round, and prints each variant's
// p50 and IOPS against fio's as paired ratios with 95% intervals. What is
// left between a variant and C or fio is the cost of that way of calling
// the kernel, since the device, the file and the moment are shared.
//
//	go run ./bench/qd1path -dir /var/tmp [-size 1GiB] [-rounds 20] [-duration 3s] [-variants go,locked,raw,c,fio]
//
// The C loop needs a C compiler (cc); fio needs fio. Variants whose tool
// is missing are skipped with a note.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/memplan/memplan/internal/stats"
	"github.com/memplan/memplan/measure/device"
)

func main() {
	if len(os.Args) == 5 && os.Args[1] == "-loop" {
		// A child: one timed loop, printed as "p50_us iops".
		if err := loop(os.Stdout, os.Args[2], os.Args[3], os.Args[4]); err != nil {
			fmt.Fprintln(os.Stderr, "qd1path:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
}

func run(stdout, stderr io.Writer, args []string) int {
	fs := flag.NewFlagSet("qd1path", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", os.TempDir(), "directory on the device to measure")
	sizeMiB := fs.Int("size-mib", 1024, "test file size in MiB")
	rounds := fs.Int("rounds", 20, "rounds; each runs every variant once, in shuffled order")
	dur := fs.Duration("duration", 3*time.Second, "length of one loop")
	variants := fs.String("variants", "go,locked,raw,c,fio", "variants to compare: go, locked, raw, c, fio, fio-fresh, and the names given to -memplan")
	raw := fs.Bool("raw", false, "also print every round's figures")
	memplan := fs.String("memplan", "", "memplan binaries as variants, NAME=PATH[,NAME=PATH] (PATH alone is the variant memplan), e.g. before=/tmp/old,after=/tmp/new")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *rounds < 2 || *sizeMiB < 1 || *dur <= 0 {
		fmt.Fprintln(stderr, "qd1path: -rounds must be at least 2, -size-mib and -duration positive")
		return 2
	}
	work, err := os.MkdirTemp("", "qd1path-")
	if err != nil {
		fmt.Fprintln(stderr, "qd1path:", err)
		return 2
	}
	defer os.RemoveAll(work)
	file := filepath.Join(*dir, fmt.Sprintf(".memplan-qd1path-%d.dat", os.Getpid()))
	defer os.Remove(file)
	fmt.Fprintf(stderr, "qd1path: writing a %d MiB file in %s with O_DIRECT\n", *sizeMiB, *dir)
	if err := fill(file, int64(*sizeMiB)<<20); err != nil {
		fmt.Fprintln(stderr, "qd1path:", err)
		return 2
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "qd1path:", err)
		return 2
	}
	secs := strconv.FormatFloat(dur.Seconds(), 'f', -1, 64)
	cmds := map[string][]string{}
	var names []string
	binaries := map[string]string{}
	if *memplan != "" {
		for _, nb := range strings.Split(*memplan, ",") {
			name, bin, ok := strings.Cut(nb, "=")
			if !ok {
				name, bin = "memplan", nb
			}
			binaries[name] = bin
		}
	}
	for _, v := range strings.Split(*variants, ",") {
		if bin, ok := binaries[v]; ok {
			// memplan's device benchmark as a user runs it: a fresh
			// file, its fill, then the read test.
			cmds[v] = []string{bin, "probe", "device", "--path", *dir, "--size", strconv.Itoa(*sizeMiB) + "MiB",
				"--duration", secs + "s", "--tests", "rand-read-4k-qd1", "--format", "json"}
			names = append(names, v)
			continue
		}
		switch v {
		case "go", "locked", "raw":
			cmds[v] = []string{self, "-loop", v, file, secs}
		case "c":
			bin := filepath.Join(work, "cloop")
			src, err := cSource()
			if err == nil {
				err = exec.Command("cc", "-O2", "-o", bin, src).Run()
			}
			if err != nil {
				fmt.Fprintf(stderr, "qd1path: no C loop (%v); skipped\n", err)
				continue
			}
			cmds[v] = []string{bin, file, secs}
		case "fio":
			if _, err := exec.LookPath("fio"); err != nil {
				fmt.Fprintln(stderr, "qd1path: fio is not installed; skipped (apt-get install fio)")
				continue
			}
			cmds[v] = []string{"fio", "--readonly", "--output-format=json", "--name=r", "--filename=" + file,
				"--direct=1", "--rw=randread", "--bs=4k", "--ioengine=psync", "--norandommap", "--randrepeat=0",
				"--time_based", "--runtime=" + secs, "--lat_percentiles=1"}
		case "fio-fresh":
			// fio's own fill of a new file, then the same reads: what
			// fio-compare.sh runs. --stonewall on the reads makes them wait
			// for the fill; without it they run alongside and read
			// unwritten extents (zeros, no I/O: a p50 of 2 us).
			if _, err := exec.LookPath("fio"); err != nil {
				fmt.Fprintln(stderr, "qd1path: fio is not installed; skipped (apt-get install fio)")
				continue
			}
			fresh := filepath.Join(*dir, fmt.Sprintf(".memplan-qd1path-%d-fresh.dat", os.Getpid()))
			defer os.Remove(fresh)
			cmds[v] = []string{"sh", "-c", `rm -f "$1"; fio --output-format=json --filename="$1" --size="$2"m --direct=1 --norandommap --randrepeat=0 --lat_percentiles=1 --scramble_buffers=0 \
				--name=fill --rw=write --bs=1m --ioengine=psync \
				--name=r --stonewall --rw=randread --bs=4k --ioengine=psync --time_based --runtime="$3"; rm -f "$1"`,
				"sh", fresh, strconv.Itoa(*sizeMiB), secs}
		default:
			fmt.Fprintf(stderr, "qd1path: unknown variant %q (want go, locked, raw, c, fio, fio-fresh or a name given to -memplan)\n", v)
			return 2
		}
		names = append(names, v)
	}
	if len(names) < 2 {
		fmt.Fprintln(stderr, "qd1path: fewer than two variants to compare")
		return 2
	}
	res := map[string][]obs{} // res[v][round]
	for r := 0; r < *rounds; r++ {
		fmt.Fprintf(stderr, "qd1path: round %d of %d\n", r+1, *rounds)
		order := slices.Clone(names)
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		got := map[string]obs{}
		for _, v := range order {
			out, err := exec.Command(cmds[v][0], cmds[v][1:]...).Output()
			if err != nil {
				fmt.Fprintf(stderr, "qd1path: %s: %v\n", v, err)
				return 1
			}
			var o obs
			if _, ok := binaries[v]; ok {
				o, err = parseMemplan(out)
			} else if v == "fio" || v == "fio-fresh" {
				o, err = parseFio(out)
			} else {
				_, err = fmt.Sscan(string(out), &o.p50, &o.iops)
			}
			if err != nil {
				fmt.Fprintf(stderr, "qd1path: %s printed %q: %v\n", v, out, err)
				return 1
			}
			got[v] = o
		}
		for _, v := range names {
			res[v] = append(res[v], got[v])
			if *raw {
				fmt.Fprintf(stdout, "round %d %s %.2f %.0f\n", r+1, v, got[v].p50, got[v].iops)
			}
		}
	}
	ref := names[len(names)-1]
	if _, ok := cmds["fio"]; ok {
		ref = "fio"
	}
	fmt.Fprintf(stdout, "QD1 4 KiB O_DIRECT random reads, %s, %d MiB file, %d rounds of %v, paired against %s (95%% intervals of the geometric mean ratio)\n",
		*dir, *sizeMiB, *rounds, *dur, ref)
	fmt.Fprintf(stdout, "%-8s %12s %10s  %-26s %-26s\n", "variant", "p50 median", "IOPS med.", "p50 vs "+ref, "IOPS vs "+ref)
	for _, v := range names {
		var p, i []float64
		for _, o := range res[v] {
			p = append(p, o.p50)
			i = append(i, o.iops)
		}
		fmt.Fprintf(stdout, "%-8s %10.1fus %10.0f  %-26s %-26s\n", v, median(p), median(i),
			ratio(res, v, ref, func(o obs) float64 { return o.p50 }), ratio(res, v, ref, func(o obs) float64 { return o.iops }))
	}
	return 0
}

// ratio is the geometric mean of v's figure over ref's, round by round,
// with its 95% Student-t interval.
func ratio[T any](res map[string][]T, v, ref string, f func(T) float64) string {
	if v == ref {
		return "-"
	}
	var logs []float64
	for r := range res[v] {
		logs = append(logs, math.Log(f(res[v][r])/f(res[ref][r])))
	}
	lo, hi := stats.MeanInterval(logs, 0.95)
	m := (lo + hi) / 2
	pct := func(x float64) float64 { return 100 * (math.Exp(x) - 1) }
	return fmt.Sprintf("%+.1f%% (%+.1f..%+.1f)", pct(m), pct(lo), pct(hi))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// obs is one loop's figures: its median latency in microseconds and IOPS.
type obs struct{ p50, iops float64 }

func parseMemplan(out []byte) (obs, error) {
	var o obs
	var p device.Profile
	if err := json.Unmarshal(out, &p); err != nil || p.RandReadQD1 == nil {
		return o, fmt.Errorf("no rand_read_qd1 in memplan's JSON")
	}
	o.p50, o.iops = p.RandReadQD1.Latency.P50Us, p.RandReadQD1.IOPS
	return o, nil
}

func parseFio(out []byte) (obs, error) {
	var j struct {
		Jobs []struct {
			Read struct {
				IOPS float64 `json:"iops"`
				Lat  struct {
					Percentile map[string]float64 `json:"percentile"`
				} `json:"lat_ns"`
				Clat struct {
					Percentile map[string]float64 `json:"percentile"`
				} `json:"clat_ns"`
			} `json:"read"`
		} `json:"jobs"`
	}
	var o obs
	// fio may print notes before its JSON.
	if i := bytes.IndexByte(out, '{'); i > 0 {
		out = out[i:]
	}
	if err := json.Unmarshal(out, &j); err != nil || len(j.Jobs) == 0 {
		return o, fmt.Errorf("no fio job in its JSON")
	}
	r := j.Jobs[len(j.Jobs)-1].Read // after a fill, the reads are the last job
	// With lat_percentiles=1 fio puts the percentiles under lat_ns (what
	// fio-compare.sh reads); older versions only under clat_ns. For psync
	// they are the same: there is no separate submission.
	p50, ok := r.Lat.Percentile["50.000000"]
	if !ok {
		p50, ok = r.Clat.Percentile["50.000000"]
	}
	if !ok || r.IOPS <= 0 {
		return o, fmt.Errorf("no read p50 or IOPS in fio's JSON")
	}
	o.p50, o.iops = p50/1000, r.IOPS
	return o, nil
}

// cSource is the C loop's source, next to this file.
func cSource() (string, error) {
	_, me, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot find the source directory")
	}
	src := filepath.Join(filepath.Dir(me), "testdata", "cloop.c")
	if _, err := os.Stat(src); err != nil {
		return "", err
	}
	if _, err := exec.LookPath("cc"); err != nil {
		return "", err
	}
	return src, nil
}

// fill writes size bytes of random data with 1 MiB O_DIRECT writes, as
// memplan's device benchmark does, so no page of it is in the page cache.
func fill(path string, size int64) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_DIRECT, 0o600)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	buf, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return err
	}
	defer unix.Munmap(buf)
	for i := range buf {
		buf[i] = byte(rand.Uint32())
	}
	for off := int64(0); off < size; off += int64(len(buf)) {
		if _, err := unix.Pwrite(fd, buf, off); err != nil {
			return err
		}
	}
	return unix.Fsync(fd)
}

// loop is one child's timed loop: mode go (unix.Pread on whatever thread
// the scheduler gives), locked (the same on a goroutine locked to its OS
// thread) or raw (a raw system call on a locked thread, bypassing the
// runtime's syscall entry and exit).
func loop(w io.Writer, mode, path, secs string) error {
	d, err := strconv.ParseFloat(secs, 64)
	if err != nil {
		return err
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECT, 0)
	if err != nil {
		return err
	}
	size, err := unix.Seek(fd, 0, io.SeekEnd)
	if err != nil || size < 4096 {
		return fmt.Errorf("%s: empty or unreadable", path)
	}
	buf, err := unix.Mmap(-1, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		return err
	}
	switch mode {
	case "go":
	case "locked", "raw":
		runtime.LockOSThread()
	default:
		return fmt.Errorf("unknown loop %q", mode)
	}
	blocks := size / 4096
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	lat := make([]float64, 0, 1<<20)
	start := time.Now()
	end := start.Add(time.Duration(d * float64(time.Second)))
	last := start
	for last.Before(end) {
		off := rng.Int64N(blocks) * 4096
		t0 := time.Now()
		var n int
		if mode == "raw" {
			r, _, e := syscall.RawSyscall6(unix.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), 4096, uintptr(off), 0, 0)
			if e != 0 {
				return e
			}
			n = int(r)
		} else if n, err = unix.Pread(fd, buf, off); err != nil {
			return err
		}
		t1 := time.Now()
		if n != 4096 {
			return fmt.Errorf("short read: %d bytes", n)
		}
		lat = append(lat, float64(t1.Sub(t0).Nanoseconds())/1000)
		last = t1
	}
	fmt.Fprintf(w, "%.2f %.0f\n", median(lat), float64(len(lat))/last.Sub(start).Seconds())
	return nil
}
