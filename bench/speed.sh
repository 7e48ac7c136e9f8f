#!/usr/bin/env bash
# bench/speed.sh: memplan's speed figures next to limits measured in the
# same run, median of N rounds (default 5), optionally interleaved round by
# round with an older revision.
#
#   bench/speed.sh [--rounds N] [--old REV]
#
# Figures and their limits:
#   recommend 10k DIMMs x 2k drives   vs the same walk with a constant slowdown
#                                        (model.SetConstantSlowdown: no model)
#   the same for the table's first 10 (Input.Top: what cannot rank there
#                                        is skipped), against the full search
#   load + recommend 10k x 2k         (no limit: parse + merge + the above)
#   uncertainty, Intel, 1000 runs     (no limit)
#   10k x 2k with 50 job classes      vs the same walk with a constant slowdown
#   uncertainty on 10k x 2k, 20 runs  vs the same runs with a constant slowdown
#   workbook of 10k configurations    vs excelize's streaming writer writing
#                                        the same cells with no formatting
#   memplan recommend -w eda.yaml     vs memplan version (process start)
# Each goal comes from issue 24; the ratio to the limit says how much the
# model (or the formatting) costs on top of what cannot be avoided.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=5 old=
while [ $# -gt 0 ]; do
	case "$1" in
	--rounds) rounds=$2; shift 2 ;;
	--old) old=$2; shift 2 ;;
	*) echo "usage: bench/speed.sh [--rounds N] [--old REV]" >&2; exit 2 ;;
	esac
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"; [ -z "$old" ] || git worktree remove --force "$tmp/old-src" 2>/dev/null || true' EXIT

build() { # build DIR TAG: test binaries and memplan of the tree in DIR
	(cd "$1" && go test -c -o "$tmp/$2-model.test" ./model &&
		go test -c -o "$tmp/$2-xlsx.test" ./reports/xlsx &&
		go build -o "$tmp/$2-memplan" ./cmd/memplan)
}
tags=(new)
build . new
if [ -n "$old" ]; then
	git worktree add -q --detach "$tmp/old-src" "$old"
	build "$tmp/old-src" old
	tags+=(old)
fi

ms() { date +%s%N; }
proc() { # proc TAG ARGS...: median of 11 whole-process runs, in ms
	local t0 xs=()
	for _ in $(seq 11); do
		t0=$(ms)
		"$tmp/$1-memplan" "${@:2}" >/dev/null 2>&1 || true
		xs+=($(( ($(ms) - t0) / 1000 )))
	done
	printf '%s\n' "${xs[@]}" | sort -n | sed -n 6p | awk '{printf "%.1f", $1/1000}'
}

out="$tmp/raw"
: >"$out"
for r in $(seq "$rounds"); do
	for tag in "${tags[@]}"; do
		# The old tree may lack the limit benchmarks: its rows stay empty.
		(cd model && "$tmp/$tag-model.test" -test.run XXX -test.benchtime 1x -test.benchmem \
			-test.bench 'Recommend10kDIMMs2kDrives(Limit|Top10)?$|LoadAndRecommend10k|UncertaintyIntel1000|50Classes|Uncertainty10k') |
			awk -v t="$tag" '/^Benchmark/ {sub(/-[0-9]+$/, "", $1); for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") ns = $i; else if ($(i+1) == "B/op") by = $i; print t, $1, ns / 1e6, by / 1e6}' >>"$out"
		(cd reports/xlsx && "$tmp/$tag-xlsx.test" -test.run XXX -test.benchtime 1x -test.benchmem -test.bench 'Write10k') |
			awk -v t="$tag" '/^Benchmark/ {sub(/-[0-9]+$/, "", $1); for (i = 3; i < NF; i++) if ($(i+1) == "ns/op") ns = $i; else if ($(i+1) == "B/op") by = $i; print t, $1, ns / 1e6, by / 1e6}' >>"$out"
		echo "$tag BenchmarkProcessRecommendEDA $(proc "$tag" recommend -w examples/eda.yaml) -" >>"$out"
		echo "$tag BenchmarkProcessVersion $(proc "$tag" version) -" >>"$out"
	done
	echo "round $r of $rounds done" >&2
done

med() { # med TAG NAME COLUMN
	awk -v t="$1" -v n="$2" -v c="$3" '$1 == t && $2 == n {print $c}' "$out" | sort -g |
		awk '{x[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print x[(NR + 1) / 2]; else print (x[NR / 2] + x[NR / 2 + 1]) / 2}'
}
row() { # row LABEL BENCH LIMITBENCH GOAL
	for tag in "${tags[@]}"; do
		local v l ratio mb
		v=$(med "$tag" "$2" 3) mb=$(med "$tag" "$2" 4)
		l=- ratio=-
		if [ -n "$3" ]; then
			l=$(med "$tag" "$3" 3)
			[ "$l" = - ] || [ "$v" = - ] || ratio=$(awk -v a="$v" -v b="$l" 'BEGIN {r = a / b; printf (r < 1 ? "%.2fx" : "%.1fx"), r}')
		fi
		printf '%-34s %-4s %10s ms %9s MB %10s ms %7s   %s\n' "$1" "$tag" "$v" "$mb" "$l" "$ratio" "$4"
	done
}
echo
echo "memplan speed, median of $rounds rounds ($(date -u +%Y-%m-%d), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-34s %-4s %13s %12s %13s %8s   %s\n' figure rev median memory limit ratio goal
row "recommend 10k DIMMs x 2k drives" BenchmarkRecommend10kDIMMs2kDrives BenchmarkRecommend10kDIMMs2kDrivesLimit "<= 50 ms, <= 64 MB"
row "the same, the table's first 10" BenchmarkRecommend10kDIMMs2kDrivesTop10 BenchmarkRecommend10kDIMMs2kDrives "<= 0.33x the full search (its limit)"
row "load + recommend 10k x 2k" BenchmarkLoadAndRecommend10kDIMMs2kDrives "" "<= 120 ms"
row "uncertainty Intel 1000 runs" BenchmarkUncertaintyIntel1000 "" "keep (0.20-0.22 s)"
row "10k x 2k, 50 job classes" BenchmarkRecommend10kDIMMs2kDrives50Classes BenchmarkRecommend10kDIMMs2kDrives50ClassesLimit "<= 2x the limit"
row "uncertainty 10k x 2k, 20 runs" BenchmarkUncertainty10kDIMMs2kDrives BenchmarkUncertainty10kDIMMs2kDrivesLimit "<= 2x the limit"
row "workbook of 10k configurations" BenchmarkWrite10k BenchmarkWrite10kStreamLimit "<= 400 ms"
row "memplan recommend -w eda.yaml" BenchmarkProcessRecommendEDA BenchmarkProcessVersion "<= 20 ms"
