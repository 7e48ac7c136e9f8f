//go:build linux

// Command onepass measures what the one-pass sampler (measure/onepass)
// costs a command and what it predicts for it. As root:
//
//	go run ./bench/onepass [-reps 3] [-duty 0.02] [-out p.json] [-compare multi.profile.json] -- CMD ARGS...
//
// It runs the command in a memory cgroup of its own (no limit), bare and
// sampled in turn (bare, sampled, sampled, bare, ...: a drift of the host's
// load falls on both), after one unmeasured warm-up run that fills the
// page cache. It prints every run's wall time, the overhead (sampled / bare
// - 1) with its mean and 95% Student-t interval, and the slowdown the
// one-pass curve predicts at fits 0.9, 0.75 and 0.5.
//
// With -compare, the predictions of every sampled run are set against the
// curves of a multi-run `memplan profile` of the same command: for each of
// its curves, the one-pass prediction on that curve's measured device (its
// reference latencies), once with the model's default fault overhead (what
// a one-pass profile knows alone) and once with the profile's measured
// overhead; and the one-pass rate of pages needed back against the
// profile's page counts, per second and in all over each run (a busy host
// stretches a run, not the pages it needs). The fit ratios divide the
// run's peak RSS (rusage), as memplan profile's footprint does.
//
// -trace FILE writes every read of the sampled runs (one JSON object a
// line, and one closing each run); -from-trace FILE re-derives those runs
// from it without running anything, so that a change to the inference can
// be judged on the same reads.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/memplan/memplan/factors"
	"github.com/memplan/memplan/internal/testinput"
	"github.com/memplan/memplan/measure/onepass"
	"github.com/memplan/memplan/model"
)

func main() {
	reps := flag.Int("reps", 3, "bare and sampled runs each")
	duty := flag.Float64("duty", onepass.DefaultDuty, "sampler duty cycle")
	out := flag.String("out", "", "write the one-pass profile (of the last sampled run) here")
	compare := flag.String("compare", "", "a multi-run profile of the same command to compare with")
	stdout := flag.String("stdout", "/dev/null", "the command's stdout")
	from := flag.String("from", "", "no runs: re-derive from the samples in a one-pass profile this tool wrote (-out), and compare")
	trace := flag.String("trace", "", "write every read of the sampled runs here, one JSON object a line (with the run's number)")
	fromTrace := flag.String("from-trace", "", "no runs: re-derive every sampled run of a -trace file, and compare")
	gen := flag.String("gen-lines", "", "write FILE:MiB of random 20-80 character lines (cmd/memplan's test input for sort) and exit")
	genC := flag.String("gen-c", "", "write FILE:N, a C file of N generated functions (cmd/memplan's test input for gcc, N=300) and exit")
	flag.Parse()
	if *gen != "" || *genC != "" {
		var err error
		if *gen != "" {
			err = genInput("gen-lines", *gen, "MiB", func(name string, mib int) error { return testinput.Lines(name, mib<<20) })
		}
		if *genC != "" && err == nil {
			err = genInput("gen-c", *genC, "N", testinput.C)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "onepass:", err)
			os.Exit(2)
		}
		return
	}
	argv := flag.Args()
	if *fromTrace != "" {
		if err := fromTraceFile(*fromTrace, *compare); err != nil {
			fmt.Fprintln(os.Stderr, "onepass:", err)
			os.Exit(1)
		}
		return
	}
	if *from != "" {
		if err := rederive(*from, *compare); err != nil {
			fmt.Fprintln(os.Stderr, "onepass:", err)
			os.Exit(1)
		}
		return
	}
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "usage: onepass [flags] -- CMD ARGS...")
		os.Exit(2)
	}
	procs, cleanup, err := makeCgroup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "onepass:", err)
		os.Exit(2)
	}
	defer cleanup()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; cleanup(); os.Exit(130) }()

	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "onepass:", err)
		cleanup()
		os.Exit(1)
	}
	if _, _, _, _, err := run(procs, argv, *stdout, nil); err != nil {
		fail(err)
	}
	var tw *os.File
	if *trace != "" {
		if tw, err = os.Create(*trace); err != nil {
			fail(err)
		}
		defer tw.Close()
	}
	var bare, sampled []float64
	var bareCPU, sampledCPU []cpuTimes
	type sampledRun struct {
		s      onepass.Samples
		wall   time.Duration
		maxRSS int64
	}
	var runs []sampledRun
	fmt.Printf("command: %s\n", strings.Join(argv, " "))
	for i := 0; i < *reps; i++ {
		order := []bool{false, true}
		if i%2 == 1 {
			order = []bool{true, false}
		}
		for _, withSampler := range order {
			var cfg *onepass.Config
			if withSampler {
				cfg = &onepass.Config{Duty: *duty}
				if tw != nil {
					rep := i + 1
					cfg.Trace = func(r onepass.Read) {
						data, _ := json.Marshal(struct {
							Rep int `json:"rep"`
							onepass.Read
						}{rep, r})
						tw.Write(append(data, '\n'))
					}
				}
			}
			wall, s, maxRSS, ct, err := run(procs, argv, *stdout, cfg)
			if err != nil {
				fail(err)
			}
			if withSampler {
				sampled = append(sampled, wall.Seconds())
				sampledCPU = append(sampledCPU, ct)
				runs = append(runs, sampledRun{s, wall, maxRSS})
				if tw != nil {
					data, _ := json.Marshal(traceEnd{Rep: i + 1, End: s.Elapsed.Seconds(), Peak: max(maxRSS, s.PeakRss), Wall: wall.Seconds()})
					tw.Write(append(data, '\n'))
				}
				fmt.Printf("rep %d sampled %7.3fs  job CPU %7.3fs, sampler CPU %.3fs  (%d reads in %d sweeps, %d restarted, %d skipped; read %.1f ms, clear %.1f ms; sampler %.2f%% of the run; %d processes)\n",
					i+1, wall.Seconds(), ct.Job, ct.Self, s.Windows, s.Sweeps, s.Restarts, s.Skipped, 1e3*s.Cost.Mean, 1e3*s.ClearCost.Mean, 100*s.CostShare, s.Processes)
			} else {
				bare = append(bare, wall.Seconds())
				bareCPU = append(bareCPU, ct)
				fmt.Printf("rep %d bare    %7.3fs  job CPU %7.3fs\n", i+1, wall.Seconds(), ct.Job)
			}
		}
	}
	var ratios []float64
	for i := range bare {
		ratios = append(ratios, 100*(sampled[i]/bare[i]-1))
	}
	m := mean(ratios)
	lo, hi := model.TInterval(ratios, 0.95)
	fmt.Printf("bare mean %.3fs, sampled mean %.3fs; overhead per pair %s %%: mean %+.1f%%, 95%% interval [%+.1f%%, %+.1f%%]\n",
		mean(bare), mean(sampled), fmtList(ratios), m, lo, hi)
	printCPUOverhead(bareCPU, sampledCPU)
	last := runs[len(runs)-1].s
	fmt.Printf("method %s (DAMON vaddr: %s, %s), split: %s\n", last.Method, last.DAMON.Vaddr, last.DAMON.Evidence, last.Split)

	for k, sr := range runs {
		fmt.Printf("\n== sampled run %d of %d (%.3fs, peak RSS %.1f MiB by rusage)\n", k+1, len(runs), sr.wall.Seconds(), float64(sr.maxRSS)/(1<<20))
		info := onepass.Info{Command: argv, Version: "bench", Runtime: sr.wall, Fits: []float64{0.9, 0.75, 0.5},
			Peak: max(sr.maxRSS, sr.s.PeakRss), PeakSource: "the run's peak RSS (rusage), or the sampler's when higher"}
		if h, err := os.Hostname(); err == nil {
			info.Host = &factors.HostFacts{Hostname: h}
		}
		res, err := onepass.Derive(info, sr.s, onepass.DefaultCosts())
		if err != nil {
			fail(err)
		}
		printResult(res)
		if *out != "" && k == len(runs)-1 {
			f, err := res.Factors(info)
			if err != nil {
				fail(err)
			}
			data, _ := json.MarshalIndent(f, "", "  ")
			if err := os.WriteFile(*out, append(data, '\n'), 0o644); err != nil {
				fail(err)
			}
			fmt.Println("wrote", *out)
		}
		if *compare != "" {
			if err := compareWith(*compare, res); err != nil {
				fail(err)
			}
		}
	}
}

// printResult prints the curve and the predictions on zram-lz4 and hdd.
func printResult(res *onepass.Result) {
	fmt.Printf("resident peak %.1f MiB, anonymous share of referenced pages %.2f\n", res.Curve.Peak/(1<<20), res.Curve.AnonShare)
	if g := res.Samples.Grid; g != nil {
		fmt.Printf("rates from %d sweeps standing for %.2fs of the %.2fs sampled\n", g.Sweeps, g.Weight, res.Samples.Elapsed.Seconds())
	}
	fmt.Println("working set (reuse) by window:")
	for i := 1; i < len(res.Curve.Tau); i++ {
		fmt.Printf("  %7.3fs  %7.1f MiB ± %.1f  (all referenced %7.1f MiB)\n", res.Curve.Tau[i], res.Curve.W[i]/(1<<20), res.Curve.SE[i]/(1<<20), res.Curve.X[i]/(1<<20))
	}
	for _, p := range res.Predictions {
		if p.Class != "zram-lz4" && p.Class != "hdd" {
			continue
		}
		fmt.Printf("predicted on %s (%s), default overhead:\n", p.Class, p.Device)
		for _, pt := range p.Points {
			fmt.Printf("  fit %.2f  rate %8.0f pages/s [%.0f, %.0f] (%s)  slowdown %.2f [%.2f, %.2f]\n",
				pt.Fit, pt.Rate.Central, pt.Rate.Low, pt.Rate.High, pt.Rate.Where, pt.Slowdown, pt.Low, pt.High)
		}
	}
}

// traceEnd closes a sampled run's reads in a -trace file.
type traceEnd struct {
	Rep  int     `json:"rep"`
	End  float64 `json:"end_s"`
	Peak int64   `json:"peak"`
	Wall float64 `json:"wall_s"`
}

// fromTraceFile re-derives each sampled run of a trace: the rungs' means
// and the grid from the reads, as the sampler would have.
func fromTraceFile(path, compare string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	type run struct {
		reads []onepass.Read
		end   traceEnd
	}
	var runs []*run
	byRep := map[int]*run{}
	for n, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var e traceEnd
		var r struct {
			Rep int `json:"rep"`
			onepass.Read
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			return fmt.Errorf("%s:%d: %v", path, n+1, err)
		}
		json.Unmarshal([]byte(line), &r)
		rr := byRep[e.Rep]
		if rr == nil {
			rr = &run{}
			byRep[e.Rep] = rr
			runs = append(runs, rr)
		}
		if e.End > 0 {
			rr.end = e
			continue
		}
		rr.reads = append(rr.reads, r.Read)
	}
	for k, rr := range runs {
		if rr.end.End == 0 {
			return fmt.Errorf("%s: run %d has no end record (a trace from before end records were written)", path, k+1)
		}
		s := onepass.Samples{Method: onepass.MethodAccessedBits, Elapsed: time.Duration(rr.end.End * float64(time.Second))}
		for _, w := range onepass.DefaultLadder {
			s.Rungs = append(s.Rungs, onepass.Rung{Window: w})
		}
		sweeps := map[int]bool{}
		for _, r := range rr.reads {
			g := &s.Rungs[r.Rung]
			g.Actual.Add(r.Window)
			g.Ref.Add(float64(r.Ref))
			g.RefAnon.Add(float64(r.RefAnon))
			g.New.Add(float64(r.New))
			g.Reuse.Add(float64(max(0, r.Ref-r.New)))
			g.Rss.Add(float64(r.Rss))
			s.Windows++
			sweeps[r.Sweep] = true
			s.PeakRss = max(s.PeakRss, r.Rss)
		}
		s.Sweeps = len(sweeps)
		s.Grid = onepass.GridFromReads(rr.reads, rr.end.End, int64(os.Getpagesize()))
		info := onepass.Info{Fits: []float64{0.9, 0.75, 0.5}, Peak: rr.end.Peak, Runtime: time.Duration(rr.end.Wall * float64(time.Second))}
		res, err := onepass.Derive(info, s, onepass.DefaultCosts())
		if err != nil {
			return err
		}
		fmt.Printf("\n== %s, sampled run %d: %d reads in %d sweeps, %.3fs\n", path, rr.end.Rep, s.Windows, s.Sweeps, rr.end.Wall)
		printResult(res)
		if compare != "" {
			if err := compareWith(compare, res); err != nil {
				return err
			}
		}
	}
	return nil
}

// rederive loads the samples a one-pass profile carries in
// extra.one_pass.samples and derives and compares them again.
func rederive(path, compare string) error {
	f, err := model.LoadFactors(path)
	if err != nil {
		return err
	}
	res, err := onepass.FromFactors(f)
	if err != nil {
		return err
	}
	s := res.Samples
	fmt.Printf("%s: %d reads in %d sweeps, resident peak %.1f MiB\n", path, s.Windows, s.Sweeps, res.Curve.Peak/(1<<20))
	if compare == "" {
		return nil
	}
	return compareWith(compare, res)
}

// compareWith prints, for each curve of a multi-run profile, its measured
// slowdowns against the one-pass predictions on the same device
// (onepass.Compare), with the default and the profile's fault overhead.
func compareWith(path string, res *onepass.Result) error {
	mp, err := model.LoadFactors(path)
	if err != nil {
		return err
	}
	rows, err := onepass.Compare(res, mp)
	if err != nil {
		return err
	}
	for _, c := range mp.Curves {
		dev := model.RefDevice(&c)
		fmt.Printf("\n%s on %s (read %v): measured by %s\n", c.Class, dev.Name, dev.ReadLatency, filepath.Base(path))
		var costs []string
		byFit := map[float64][]onepass.Comparison{}
		var fits []float64
		for _, r := range rows {
			if r.Class != c.Class {
				continue
			}
			if !slices.Contains(costs, r.Costs) {
				costs = append(costs, r.Costs)
			}
			if _, ok := byFit[r.Fit]; !ok {
				fits = append(fits, r.Fit)
			}
			byFit[r.Fit] = append(byFit[r.Fit], r)
		}
		fmt.Printf("  %-5s %-22s", "fit", "measured (95% CI)")
		for _, v := range costs {
			fmt.Printf(" | %-34s %7s %6s", "one-pass, "+v+" (band)", "error", "inside")
		}
		fmt.Println()
		var rateLines []string
		for _, f := range fits {
			rs := byFit[f]
			ci := ""
			if len(rs[0].MeasuredCI) == 2 {
				ci = fmt.Sprintf("(%.2f-%.2f)", rs[0].MeasuredCI[0], rs[0].MeasuredCI[1])
			}
			fmt.Printf("  %-5.2f %-22s", f, fmt.Sprintf("%.2f %s", rs[0].Measured, ci))
			for _, r := range rs {
				pp := r.Predicted
				in := map[bool]string{true: "yes", false: "no"}[r.Inside]
				fmt.Printf(" | %-34s %+6.0f%% %6s", fmt.Sprintf("%.2f (%.2f-%.2f)", pp.Slowdown, pp.Low, pp.High), 100*r.Error, in)
			}
			fmt.Println()
			if r := rs[0]; r.MeasuredRate > 0 {
				pp := r.Predicted
				l := fmt.Sprintf("  fit %.2f: pages needed back %.0f/s measured, %.0f/s one-pass [%.0f, %.0f] (%+.0f%%, %s)",
					f, r.MeasuredRate, pp.Rate.Central, pp.Rate.Low, pp.Rate.High, 100*(pp.Rate.Central/r.MeasuredRate-1), pp.Rate.Where)
				// Totals over each run: a busy host stretches a run and
				// thins its rate per second, not the pages it needs.
				if base := inRAM(mp); base > 0 && res.Samples.Elapsed > 0 {
					a, b := r.MeasuredRate*base, pp.Rate.Central*res.Samples.Elapsed.Seconds()
					l += fmt.Sprintf("; in all %.0fk pages measured (%.2fs in RAM), %.0fk one-pass (%.2fs sampled): %+.0f%%", a/1e3, base, b/1e3, res.Samples.Elapsed.Seconds(), 100*(b/a-1))
				}
				rateLines = append(rateLines, l)
			}
		}
		for _, l := range rateLines {
			fmt.Println(l)
		}
	}
	return nil
}

// inRAM is a multi-run profile's runtime in RAM (s), which its page rates
// are per second of; 0 when it does not say.
func inRAM(f *factors.File) float64 {
	p, _ := f.Extra["profile"].(map[string]any)
	v, _ := p["runtime_in_ram_s"].(float64)
	return v
}

// run runs argv in the cgroup, with a sampler when cfg is given.
// The third result is the command's peak resident size (rusage maxrss,
// what memplan profile takes as the footprint when it is above the
// cgroup's).
func run(procs string, argv []string, stdout string, cfg *onepass.Config) (time.Duration, onepass.Samples, int64, cpuTimes, error) {
	var ct cpuTimes
	self0 := selfCPU()
	script := `echo $$ > "$0" && exec "$@"`
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, procs}, argv...)...)
	f, err := os.Create(stdout)
	if err != nil {
		return 0, onepass.Samples{}, 0, ct, err
	}
	defer f.Close()
	cmd.Stdout, cmd.Stderr = f, os.Stderr
	var s *onepass.Sampler
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	if cfg != nil {
		cfg.Procs = procs
		if s, err = onepass.New(*cfg); err != nil {
			return 0, onepass.Samples{}, 0, ct, err
		}
		go func() { done <- s.Run(ctx) }()
	}
	start := time.Now()
	err = cmd.Run()
	wall := time.Since(start)
	cancel()
	var out onepass.Samples
	if s != nil {
		if rerr := <-done; rerr != nil {
			return 0, out, 0, ct, rerr
		}
		out = s.Samples()
	}
	if err != nil {
		return 0, out, 0, ct, fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
	}
	var maxRSS int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		maxRSS = ru.Maxrss << 10
	}
	// The job's CPU (its own and its waited-for children's, from wait4)
	// and this process's over the run: the sampler's, and in a bare run
	// the little the runtime does while it waits.
	ct.Job = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	ct.Self = selfCPU() - self0
	return wall, out, maxRSS, ct, nil
}

// cpuTimes are one run's CPU seconds: the job's, and this process's.
type cpuTimes struct{ Job, Self float64 }

// selfCPU is this process's user and system CPU so far, seconds.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func makeCgroup() (string, func(), error) {
	base := "/sys/fs/cgroup/memory"
	if _, err := os.Stat("/sys/fs/cgroup/cgroup.controllers"); err == nil {
		base = "/sys/fs/cgroup"
	}
	dir := filepath.Join(base, fmt.Sprintf("memplan-onepass-bench-%d", os.Getpid()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("creating a cgroup (run as root): %v", err)
	}
	procs := filepath.Join(dir, "cgroup.procs")
	done := false
	return procs, func() {
		if done {
			return
		}
		done = true
		for i := 0; i < 100; i++ {
			data, _ := os.ReadFile(procs)
			pids := strings.Fields(string(data))
			if len(pids) == 0 {
				break
			}
			for _, p := range pids {
				var pid int
				fmt.Sscan(p, &pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := os.Remove(dir); err != nil {
			fmt.Fprintln(os.Stderr, "onepass: removing", dir, ":", err)
		}
	}, nil
}

// genInput writes FILE:SIZE with write (testinput.Lines or .C), for the
// flag named flagName.
func genInput(flagName, spec, unit string, write func(string, int) error) error {
	name, n, ok := strings.Cut(spec, ":")
	var size int
	if _, err := fmt.Sscan(n, &size); !ok || err != nil || size <= 0 {
		return fmt.Errorf("-%s %q: expected FILE:%s, e.g. /tmp/in:200", flagName, spec, unit)
	}
	return write(name, size)
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

func fmtList(x []float64) string {
	var b []string
	for _, v := range x {
		b = append(b, fmt.Sprintf("%+.1f", v))
	}
	return strings.Join(b, ", ")
}

// printCPUOverhead prints the overhead in CPU time, which a busy host
// disturbs far less than wall time: the job's own CPU per pair (what
// clearing the accessed bits and the page-table walks cost it), the
// sampler's CPU against the bare job's, and the two together. It does not
// see time the job spends off CPU waiting for the sampler (mmap_lock held
// by a read of its smaps); the wall-time figure does. With -trace, writing
// the trace counts as the sampler's CPU.
func printCPUOverhead(bare, sampled []cpuTimes) {
	if len(bare) == 0 || len(bare) != len(sampled) {
		return
	}
	var job, smp, all []float64
	for i := range bare {
		if bare[i].Job <= 0 {
			return
		}
		job = append(job, 100*(sampled[i].Job/bare[i].Job-1))
		// The sampler's CPU net of what this process spends in a bare run.
		net := max(sampled[i].Self-bare[i].Self, 0)
		smp = append(smp, 100*net/bare[i].Job)
		all = append(all, 100*((sampled[i].Job+net)/bare[i].Job-1))
	}
	for _, r := range []struct {
		what string
		v    []float64
	}{
		{"job's own CPU, sampled / bare - 1", job},
		{"sampler's CPU / bare job's CPU", smp},
		{"CPU in all (job + sampler) / bare - 1", all},
	} {
		lo, hi := model.TInterval(r.v, 0.95)
		fmt.Printf("CPU overhead, %s, per pair %s %%: mean %+.1f%%, 95%% interval [%+.1f%%, %+.1f%%]\n", r.what, fmtList(r.v), mean(r.v), lo, hi)
	}
}
