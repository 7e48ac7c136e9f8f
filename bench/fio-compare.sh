#!/usr/bin/env bash
# fio-compare.sh: run `memplan probe device` and fio's equivalent jobs on the
# same directory and print both side by side. The probe should agree with
# fio within the tolerance (15%) on p50 latency and IOPS of 4 KiB random
# reads and writes at queue depth 1 and 32.
#
# usage: bench/fio-compare.sh [--dir DIR] [--size 1GiB] [--duration 5]
#                             [--rounds 1] [--tolerance 15] [--report-only]
#                             [--keep DIR]
#
#   --dir DIR       directory on the device to measure (default: $TMPDIR or /var/tmp)
#   --size SIZE     test file size, NMiB or NGiB (default 1GiB)
#   --duration N    seconds per test (default 5)
#   --rounds N      run every test N times with each tool and compare medians (default 3)
#   --tolerance P   largest acceptable difference in percent (default 15)
#   --report-only   print the comparison, exit 0 whatever it says
#   --keep DIR      keep the raw JSON of every run in DIR
#
# For each test, each tool writes a fresh file with 1 MiB O_DIRECT writes
# and then runs that test alone; the tools take turns test by test. On
# virtual disks, how a file was first written changes later random-write
# speed by 2x, and neighbours move single runs by 20-50%, so both matter.
#
# From three rounds on, every figure is also compared round by round (the
# two tools' runs of a test are seconds apart): the geometric mean of
# memplan/fio with its 95% interval, which decides the verdict ("ok, shown"
# when the whole interval is within the tolerance). Medians of runs taken
# minutes apart carry the moment's noise; the paired ratio does not.
#
# Exit status: 0 agreement (or --report-only), 1 disagreement, 2 usage or
# setup error. Installs fio from Debian packages (needs root) when missing.
set -euo pipefail

dir=${TMPDIR:-/var/tmp}
size=1GiB
duration=5
rounds=3
tolerance=15
report_only=
keep=

die() { echo "fio-compare: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
	case $1 in
	--dir) dir=${2:?--dir needs a directory}; shift 2 ;;
	--size) size=${2:?--size needs a size}; shift 2 ;;
	--duration) duration=${2:?--duration needs seconds}; shift 2 ;;
	--rounds) rounds=${2:?--rounds needs a count}; shift 2 ;;
	--tolerance) tolerance=${2:?--tolerance needs a percentage}; shift 2 ;;
	--report-only) report_only=-report-only; shift ;;
	--keep) keep=${2:?--keep needs a directory}; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (see --help)" ;;
	esac
done

[ -d "$dir" ] || die "$dir is not a directory"
[[ $duration =~ ^[1-9][0-9]*$ ]] || die "--duration $duration: expected whole seconds, e.g. 5"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds $rounds: expected a count, e.g. 3"
case $size in
*GiB) fio_size=${size%GiB}g ;;
*MiB) fio_size=${size%MiB}m ;;
*) die "--size $size: expected NMiB or NGiB, e.g. 1GiB" ;;
esac
[[ ${fio_size%?} =~ ^[1-9][0-9]*$ ]] || die "--size $size: expected a whole number of MiB or GiB"

if ! command -v fio >/dev/null; then
	[ "$(id -u)" = 0 ] || die "fio is not installed and installing it needs root: apt-get install fio"
	echo "fio-compare: installing fio from Debian packages" >&2
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fio >/dev/null
fi

# Both tools run at a raised priority when root, so that neighbours taking
# the CPUs delay their completions less; neither gains over the other.
nice=()
if [ "$(id -u)" = 0 ]; then nice=(nice -n -10); fi

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
fio_file="$dir/.memplan-fio-$$.dat"
cleanup() { rm -rf "$work"; rm -f "$fio_file"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "fio-compare: building memplan" >&2
(cd "$repo" && go build -o "$work/memplan" ./cmd/memplan)
cat >"$work/jobs.fio" <<EOF
[global]
filename=$fio_file
size=$fio_size
direct=1
norandommap
randrepeat=0
lat_percentiles=1
; memplan writes the same random buffer with an 8-byte counter in it; fio's
; default rescrambling of every buffer costs it 20-30% on 1 MiB writes
scramble_buffers=0
; at queue depth 32 memplan reaps every completion that is ready
; (iodepth_batch_complete_max=32 below); fio's default reaps one per call
stonewall

; the equivalent of memplan's fill
[fill]
rw=write
bs=1m
ioengine=psync

[rand-read-4k-qd1]
rw=randread
bs=4k
ioengine=psync
time_based
runtime=$duration

[rand-read-4k-qd32]
rw=randread
bs=4k
ioengine=libaio
iodepth=32
iodepth_batch_complete_max=32
time_based
runtime=$duration

[rand-write-4k-qd1]
rw=randwrite
bs=4k
ioengine=psync
time_based
runtime=$duration

[rand-write-4k-qd32]
rw=randwrite
bs=4k
ioengine=libaio
iodepth=32
iodepth_batch_complete_max=32
time_based
runtime=$duration

[seq-read-1m-qd1]
rw=read
bs=1m
ioengine=psync
time_based
runtime=$duration

[seq-write-1m-qd1]
rw=write
bs=1m
ioengine=psync
time_based
runtime=$duration
EOF

tests=(rand-read-4k-qd1 rand-read-4k-qd32 rand-write-4k-qd1 rand-write-4k-qd32 seq-read-1m-qd1 seq-write-1m-qd1)

# run_memplan ROUND TEST and run_fio ROUND TEST each write a fresh file,
# fill it and run one test on it.
run_memplan() {
	"${nice[@]}" "$work/memplan" probe device --path "$dir" --size "$size" --duration "${duration}s" \
		--tests "$2" --format json --out "$work/memplan-$1-$2.json" 2>"$work/memplan.log" ||
		{ cat "$work/memplan.log" >&2; die "memplan failed on $2"; }
}

run_fio() {
	rm -f "$fio_file"
	"${nice[@]}" fio --output-format=json --output="$work/fio-$1-$2.json" \
		--section=fill --section="$2" "$work/jobs.fio" >/dev/null
	rm -f "$fio_file"
}

# The two tools take turns test by test, so both see the device in nearly
# the same state; which goes first alternates too, so a drift in that state
# (host caches, background writeback, neighbours) favours neither.
mp_files=() fio_files=()
turn=0
for r in $(seq 1 "$rounds"); do
	echo "fio-compare: round $r of $rounds" >&2
	for t in "${tests[@]}"; do
		if [ $((turn % 2)) = 0 ]; then run_memplan "$r" "$t"; run_fio "$r" "$t"; else run_fio "$r" "$t"; run_memplan "$r" "$t"; fi
		turn=$((turn + 1))
		mp_files+=("$work/memplan-$r-$t.json") fio_files+=("$work/fio-$r-$t.json")
	done
done

if [ -n "$keep" ]; then
	mkdir -p "$keep" && cp "$work"/*.json "$work/jobs.fio" "$keep"/
fi

echo "fio-compare: $dir, $size file, ${duration}s per test, fio $(fio --version)" >&2
join() { local IFS=,; echo "$*"; }
status=0
(cd "$repo" && go run ./bench -memplan "$(join "${mp_files[@]}")" -fio "$(join "${fio_files[@]}")" \
	-tolerance "$tolerance" $report_only) || status=$?
exit $status
