//go:build linux

// Package onepass infers a job's slowdown curve from one ordinary run
// (memplan profile --one-pass). It samples which pages the job
// references over windows of many lengths while the job runs without a
// memory limit, derives from the working-set sizes how many pages a second
// the job would need back from swap at each resident size (its miss-ratio
// curve), and turns that, with the per-page costs of the transfer model,
// into slowdowns at the usual fit ratios on every device class. The result
// is a profile in the factor-file format memplan profile writes, with
// method: one-pass and bands that say it was inferred.
//
// # Sampling (Sampler)
//
// The sampler is given the cgroup.procs of the job's cgroup (v1 or v2; it
// never creates or joins the cgroup: it runs in the caller's process) and
// follows every process listed there and in the cgroups below it, re-read
// at every clear and every read, so helpers the job forks are followed from
// the first read after they appear. Per window it writes 1 to
// /proc/PID/clear_refs (clearing the accessed bits of every page and the
// pages' referenced flags), waits, and reads Referenced from /proc/PID/smaps.
//
// Windows come in sweeps: one clear, then a read at each window length of
// the ladder in turn (DefaultLadder: 0.1 s by factors of sqrt 2 to 25.6 s,
// 17 rungs). A read does not reset the bits, so one clear serves every
// rung of a sweep; the window a read stands for is measured (from the
// middle of the clearing to the middle of the read). A sweep restarts once
// the pages it referenced reach SweepCover (95%) of what the job holds and
// the next clear is affordable, and at once when the job has more than
// doubled its resident size since the sweep's clear: so its ladder spans
// every memory size the fit ratios ask about, and window starts still
// spread over the run (a window that starts with the job sees only pages
// it allocates). A sweep cut short at the first affordable clear would
// stop where the job had referenced a fraction of its memory, short of
// the sizes the fit ratios ask about.
//
// Anonymous and file-backed pages: smaps_rollup has only process totals,
// so the sampler reads the per-mapping smaps and splits each mapping's
// Referenced in the proportion of that mapping's Anonymous to its Rss (an
// anonymous mapping is all anonymous and a file mapping without
// copy-on-write pages all file-backed, so the split is exact for both; only
// private file mappings with some copied pages are approximated). A process
// with more than PerMappingMax mappings is read from smaps_rollup instead,
// with its process-wide Anonymous/Rss share. Samples.Split says which.
//
// Pages allocated during a window are referenced in it but were never
// needed back: the sampler reads each process's resident size (statm) at
// the clear, and counts the positive growth by the read as new (a process
// born in the window counts all its pages, which overcounts the
// copy-on-write pages a fork shares). The reuse working set is
// W(tau) = referenced - new; the whole working set X(tau) = referenced.
//
// DAMON: the kernel's virtual-address DAMON could replace the accessed-bit
// sampling. DetectDAMON looks without creating a kdamond: an existing
// context's avail_operations, else the kernel config. Only the
// accessed-bit method is implemented (kernels without
// CONFIG_DAMON_VADDR offer physical-address DAMON only); Samples.Method
// and Samples.DAMON say what was used and what the kernel offered.
//
// # Bounded cost
//
// Memory: one fixed-size record per rung (Welford mean and variance,
// extremes), the rate grid (385 sizes x 9 sums, 28 KiB), the current
// sweep's reads (one per rung) and maps of the processes alive at once;
// nothing grows with the run's length. The root test reads the sampler's heap throughout.
//
// Time: the duty cycle (DefaultDuty 2%) charges a read
// its wall time and a clear its wall time plus ReTouch per resident page,
// the job's own cost of setting its accessed bits again, which New
// calibrates on the sampler's own pages (never charged below 0.1 us).
// Reads that do not fit are skipped; a sweep starts when its clear fits.
// A read walks every page table entry of smaps, so its cost grows with the
// job's resident size, and a large job gets reads far apart: the number of
// reads, not the memory, is what the budget limits.
//
// # Miss-ratio curve (MRC, RateAt, RateGrid)
//
// Working-set theory (Denning): with x bytes resident, an LRU-like memory
// keeps the pages referenced in the last tau(x) seconds, where
// X(tau(x)) = x, and a page is needed back when it is referenced after
// being absent longer than that. The rate at which pages that existed
// before a window enter it is dW/dtau, so the rate of pages needed back
// at x is dW/dtau at tau(x), per page. The size is read off X, the pages
// referenced in the window new ones included (the memory holds them), the
// rate off W (a page allocated in the window was never needed back):
// taking W for both would cap the sizes a sweep answers for at the job's
// size at its clear, so a job still growing would read as needing
// nothing back at its high fit ratios.
//
// Each sweep is its own curve (X, W made non-decreasing, W linear between
// rungs); the rate at x is the chord slope of W over the segment x falls
// in on X, which keeps an LRU cliff (a sweep: W = min(rate x tau, N))
// sharp. Below the sweep's shortest window the rate is the slope of the
// saturating working set of independent references, N (1 - exp(-k tau)),
// through the origin and the first two windows (where a job references
// much of its memory within the first window, the chord from the origin
// errs both ways). A size at or above what the job held during the sweep
// needs nothing back. Beyond the sweep's longest window (it referenced less
// than x) the sweep gives a bound only. The sweeps' rates are averaged
// over the run, weighted by the time each stands for (its clear to the
// next), on a fixed grid of sizes (1 MiB to 16 TiB by 2^(1/16); RateGrid):
// phases are weighed by their time, where averaging W over the sweeps and
// then taking the derivative answered for a phase that never ran (the
// dictionary workload's build and lookup phases). A sweep beyond whose
// longest window x lies is left out of the mean at x unless no sweep
// reached x; then its guess (the last chord falling to 0 at the job's
// size) is the mean. A sweep whose working set had stopped growing by its
// longest window (Rate.Flat) was not cut short, and informs the mean with
// its guess wherever it is, so that one sweep of a phase does not stand
// alone for a size. Rungs keep the mean working sets per window length
// for the profile's description; samples without a grid (older files)
// are derived from them.
//
// Band: for a concave W (a stationary job's mean working set is concave in
// tau) the derivative within a segment lies between the chord slopes of the
// segments after and before it. Below a sweep's shortest window the upper
// end is twice the first chord (a stated guess: nothing bounds it); beyond
// its longest it is at least (size - X(top)) / top, since a page reused
// only after more than the longest window is needed back at most once per
// window. Over the run: the informing sweeps' low ends and every sweep's
// high end, averaged by time, each moved out by two standard errors of the
// time-weighted mean rate (the spread across sweeps; DefaultSpread, 50%,
// of the rate when the weight rests on one sweep), then by the factor
// Widen (1.5) on both sides. The slowdown band is the low rate at the low
// end of the fault overhead's range and the high rate at its high end.
//
// # Slowdown and the profile (Derive, Result.Factors)
//
// S(fit) = 1 + rate(fit x peak) x PageTime on each device (model.Path:
// software overhead per page plus the device's read, and on zram the
// re-compression). Costs default to the model's: fault_overhead 20 us over
// 10-50 us, the zram compressors of its software list, the reference
// devices of its published curves; Costs.Measured and Costs.WithDevice put
// in what the probe or a multi-run profile measured on the host. Block
// devices are charged one fault per page (readahead cannot be seen
// without swapping), so sequential jobs come out too slow there.
//
// Result.Factors writes a factors.File: one curve for each device
// marked Curve (zram-lz4 by default), its points carrying the inferred
// page_rate and the band as ci, transfer_from that curve (the model then
// derives every other class from the page rates, as for a multi-run
// profile), fault_overhead only when measured, and extra.profile.method:
// one-pass with the samples, the curve, the costs and the predictions
// under extra.one_pass. The curves' provenance is inferred (factors.Inferred):
// recommend says how the curve was obtained and carries the band as it is;
// the file is loaded back before it is returned.
//
// # Where it fails
//
//   - Short jobs. A job of seconds gets a handful of reads within the duty
//     cycle: one or two sweeps, whose chords span several fit ratios at
//     once, so the curve is flat across them and mostly band.
//   - Phases shorter than a sweep. A sweep averages over what the job did
//     during it; phases are weighed by time only as finely as sweeps start.
//   - The kernel is not LRU. Reclaim keeps active and inactive lists,
//     prefers file pages, and reads ahead; a merge sort, whose windows
//     sweep hundreds of MiB in a second, has a working-set cliff that the
//     kernel's reclaim softens, so the cliff overstates the pages needed
//     back.
//   - Shared pages count once per process that maps them (Referenced has
//     no proportional form), so forked workers sharing memory overstate W.
//   - Pages read through read() are page cache, not mapped: they are not
//     in W, and neither are their refaults. Under a cgroup limit they are
//     charged to the job and compete with its memory (a sort that spills
//     to temp files). Info.Charged carries the cgroup's peak charge;
//     where it exceeds the resident peak by more than a quarter (and
//     16 MiB) the profile says so (PageCacheNote).
//
// # Comparing with a multi-run profile (Compare, FromFactors)
//
// Compare predicts every curve of a multi-run profile of the same command
// on that curve's own device, with the default and the profile's measured
// fault overhead, and says per point whether the measured value lies in
// the one-pass band and whether the band meets the measured interval;
// FromFactors re-derives a written one-pass profile from its samples.
// bench/onepass prints the comparison; cmd/memplan's
// TestProfileRealPrograms logs it for sort, the dictionary workload and
// gcc (bench/results/onepass-2026-12-02.md has the lab's figures).
//
// # Wiring into memplan profile --one-pass
//
// The caller (measure/profile) creates and journals the
// job's cgroup and starts the command in it as for a multi-run profile's
// unconstrained run; then:
//
//	s, err := onepass.New(onepass.Config{Procs: filepath.Join(cgroupDir, "cgroup.procs")})
//	ctx, cancel := context.WithCancel(ctx)
//	go func() { done <- s.Run(ctx) }()
//	// ... wait for the command ...
//	cancel(); <-done
//	res, err := onepass.Derive(onepass.Info{Command: argv, Version: version, Host: &hostFacts,
//		Started: t0, Runtime: wall, ExitCode: code, Peak: residentPeak, PeakSource: "memory.stat",
//		Fits: opts.Fits, Cgroup: cgroupDir}, s.Samples(), costs)
//	f, err := res.Factors(info) // *factors.File, method: one-pass
//
// where costs is onepass.DefaultCosts(), or .Measured(o, source) with a
// fault overhead the probe measured, and .WithDevice for the host's swap
// file as the device profile measured it. The sampler makes no change to
// the host that needs undoing (clear_refs only resets accessed bits).
package onepass
