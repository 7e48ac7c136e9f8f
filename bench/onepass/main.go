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
// With -compare, the predictions are set against the curves of a
// multi-run `memplan profile` of the same command: for each of its curves,
// the one-pass prediction on that curve's measured device (its reference
// latencies), once with the model's default fault overhead (what a one-pass
// profile knows alone) and once with the profile's measured overhead.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

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
	gen := flag.String("gen-lines", "", "write FILE:MiB of random 20-80 character lines (cmd/memplan's test input) and exit")
	flag.Parse()
	if *gen != "" {
		if err := genLines(*gen); err != nil {
			fmt.Fprintln(os.Stderr, "onepass:", err)
			os.Exit(2)
		}
		return
	}
	argv := flag.Args()
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
	if _, _, err := run(procs, argv, *stdout, nil); err != nil {
		fail(err)
	}
	var bare, sampled []float64
	var last onepass.Samples
	var lastWall time.Duration
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
			}
			wall, s, err := run(procs, argv, *stdout, cfg)
			if err != nil {
				fail(err)
			}
			if withSampler {
				sampled = append(sampled, wall.Seconds())
				last, lastWall = s, wall
				fmt.Printf("rep %d sampled %7.3fs  (%d reads in %d sweeps, %d restarted, %d skipped; read %.1f ms, clear %.1f ms; sampler %.2f%% of the run; %d processes)\n",
					i+1, wall.Seconds(), s.Windows, s.Sweeps, s.Restarts, s.Skipped, 1e3*s.Cost.Mean, 1e3*s.ClearCost.Mean, 100*s.CostShare, s.Processes)
			} else {
				bare = append(bare, wall.Seconds())
				fmt.Printf("rep %d bare    %7.3fs\n", i+1, wall.Seconds())
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
	fmt.Printf("method %s (DAMON vaddr: %s, %s), split: %s\n", last.Method, last.DAMON.Vaddr, last.DAMON.Evidence, last.Split)

	info := onepass.Info{Command: argv, Version: "bench", Runtime: lastWall, Fits: []float64{0.9, 0.75, 0.5}}
	if h, err := os.Hostname(); err == nil {
		info.Host = &model.HostFacts{Hostname: h}
	}
	res, err := onepass.Derive(info, last, onepass.DefaultCosts())
	if err != nil {
		fail(err)
	}
	fmt.Printf("resident peak %.1f MiB (summed Rss), anonymous share of referenced pages %.2f\n", res.Curve.Peak/(1<<20), res.Curve.AnonShare)
	fmt.Println("working set (reuse) by window:")
	for i := 1; i < len(res.Curve.Tau); i++ {
		fmt.Printf("  %7.3fs  %7.1f MiB ± %.1f\n", res.Curve.Tau[i], res.Curve.W[i]/(1<<20), res.Curve.SE[i]/(1<<20))
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
	if *out != "" {
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
		if err := compareWith(*compare, res, info); err != nil {
			fail(err)
		}
	}
}

// rederive loads the samples a one-pass profile carries in
// extra.one_pass.samples and derives and compares them again.
func rederive(path, compare string) error {
	f, err := model.LoadFactors(path)
	if err != nil {
		return err
	}
	op, _ := f.Extra["one_pass"].(map[string]any)
	raw, err := json.Marshal(op["samples"])
	if err != nil {
		return err
	}
	var s onepass.Samples
	if err := json.Unmarshal(raw, &s); err != nil || len(s.Rungs) == 0 {
		return fmt.Errorf("%s: extra.one_pass.samples: expected the samples a one-pass profile carries (%v)", path, err)
	}
	info := onepass.Info{Fits: []float64{0.9, 0.75, 0.5}}
	res, err := onepass.Derive(info, s, onepass.DefaultCosts())
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d reads in %d sweeps, resident peak %.1f MiB\n", path, s.Windows, s.Sweeps, res.Curve.Peak/(1<<20))
	if compare == "" {
		return nil
	}
	return compareWith(compare, res, info)
}

// compareWith prints, for each curve of a multi-run profile, its measured
// slowdowns against the one-pass predictions on the same device.
func compareWith(path string, res *onepass.Result, info onepass.Info) error {
	mp, err := model.LoadFactors(path)
	if err != nil {
		return err
	}
	for _, c := range mp.Curves {
		dev := c.RefDevice()
		dc := onepass.DeviceCost{Class: c.Class, Dev: dev, Source: "the multi-run profile's measured device"}
		variants := []struct {
			name  string
			costs onepass.Costs
		}{
			{"default o", onepass.DefaultCosts()},
		}
		if mp.FaultOverhead > 0 {
			variants = append(variants, struct {
				name  string
				costs onepass.Costs
			}{fmt.Sprintf("o=%v", mp.FaultOverhead), onepass.DefaultCosts().Measured(mp.FaultOverhead.D(), "multi-run profile")})
		}
		fmt.Printf("\n%s on %s (read %v): measured by %s\n", c.Class, dev.Name, dev.ReadLatency, filepath.Base(path))
		fmt.Printf("  %-5s %-22s", "fit", "measured (95% CI)")
		for _, v := range variants {
			fmt.Printf(" | %-28s %7s %6s", "one-pass "+v.name+" (band)", "error", "inside")
		}
		fmt.Println()
		preds := make([][]onepass.PredPoint, len(variants))
		for i, v := range variants {
			ps, err := res.Curve.Predict(info.Fits, v.costs.WithDevice(dc))
			if err != nil {
				return err
			}
			for _, p := range ps {
				if p.Class == c.Class {
					preds[i] = p.Points
				}
			}
		}
		pts := append([]model.Point(nil), c.Points...)
		sort.Slice(pts, func(a, b int) bool { return pts[a].Fit > pts[b].Fit })
		for _, pt := range pts {
			ci := ""
			if len(pt.CI) == 2 {
				ci = fmt.Sprintf("(%.2f-%.2f)", pt.CI[0], pt.CI[1])
			}
			fmt.Printf("  %-5.2f %-22s", pt.Fit, fmt.Sprintf("%.2f %s", pt.Slowdown, ci))
			for i := range variants {
				var pp *onepass.PredPoint
				for j := range preds[i] {
					if math.Abs(preds[i][j].Fit-pt.Fit) < 1e-9 {
						pp = &preds[i][j]
					}
				}
				if pp == nil {
					fmt.Printf(" | %-28s %7s %6s", "-", "", "")
					continue
				}
				e := 100 * (pp.Slowdown/pt.Slowdown - 1)
				in := "no"
				if pt.Slowdown >= pp.Low && pt.Slowdown <= pp.High {
					in = "yes"
				}
				fmt.Printf(" | %-28s %+6.0f%% %6s", fmt.Sprintf("%.2f (%.2f-%.2f)", pp.Slowdown, pp.Low, pp.High), e, in)
			}
			fmt.Println()
		}
	}
	return nil
}

// run runs argv in the cgroup, with a sampler when cfg is given.
func run(procs string, argv []string, stdout string, cfg *onepass.Config) (time.Duration, onepass.Samples, error) {
	script := `echo $$ > "$0" && exec "$@"`
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, procs}, argv...)...)
	f, err := os.Create(stdout)
	if err != nil {
		return 0, onepass.Samples{}, err
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
			return 0, onepass.Samples{}, err
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
			return 0, out, rerr
		}
		out = s.Samples()
	}
	if err != nil {
		return 0, out, fmt.Errorf("%s: %v", strings.Join(argv, " "), err)
	}
	return wall, out, nil
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

// genLines writes the input cmd/memplan's TestProfileRealPrograms sorts
// (the same generator and seed): FILE:MiB.
func genLines(spec string) error {
	name, mib, ok := strings.Cut(spec, ":")
	var size int
	if _, err := fmt.Sscan(mib, &size); !ok || err != nil || size <= 0 {
		return fmt.Errorf("-gen-lines %q: expected FILE:MiB, e.g. /tmp/lines.txt:200", spec)
	}
	size <<= 20
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	line := make([]byte, 0, 96)
	for n := 0; n < size; {
		line = line[:0]
		for k := 20 + rng.IntN(61); k > 0; k-- {
			line = append(line, alphabet[rng.IntN(len(alphabet))])
		}
		line = append(line, '\n')
		w.Write(line)
		n += len(line)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
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
