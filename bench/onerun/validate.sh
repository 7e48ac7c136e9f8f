#!/usr/bin/env bash
# The one run against whole runs on real programs: for each PROGRAM named
# (default: all), bench/onerun/compare.sh with its fits and options, on
# BACKEND (zram or file; SWAP_DIR for file), REPS repetitions interleaved.
# Inputs are generated into OUTDIR first. Needs root, yosys, gcc, ngspice,
# iverilog/vvp and python3; takes about 10 minutes per program and rep.
#
#   sudo [BACKEND=file] [REPS=2] [MEMPLAN=memplan] bench/onerun/validate.sh OUTDIR [PROGRAM...]
#
# PROGRAMs: truth (the step-counting job, truth.c), dict (CPython
# dictionary, examples/profile/dict.py), yosys (synthesis of 60
# multiply-accumulate stages, --peak 2.2GiB), gcc (-O2 of a generated 3.8
# MB file, --peak 540MiB), ngspice (an RC ladder that keeps every waveform,
# --peak 3GiB), vvp (Icarus Verilog sweeping a 512 MiB array), sort (GNU
# sort of 800 MB of random lines with two threads, LC_ALL=C).
set -euo pipefail
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
progs=("${@:-truth dict yosys gcc ngspice vvp sort}")
mkdir -p "$out"
in=$out/inputs
mkdir -p "$in"
[ -x "$in/truth" ] || cc -O2 -o "$in/truth" "$here/truth.c"
cp "$repo/examples/profile/dict.py" "$in/dict.py"
[ -s "$in/gen60.v" ] || python3 - "$in/gen60.v" <<'PY'
import sys
n = 60
with open(sys.argv[1], "w") as f:
    f.write("module top(input clk, input [31:0] a, input [31:0] b, output [31:0] y);\nreg [31:0] s0;\n")
    for i in range(n):
        f.write("reg [31:0] s%d; always @(posedge clk) s%d <= (s%d * (a ^ 32'd%d)) + (b >> %d) + (s%d[%d] ? a : b);\n"
                % (i + 1, i + 1, i, (i * 2654435761) % (1 << 32), i % 31, i, i % 32))
    f.write("always @(posedge clk) s0 <= a + b;\nassign y = s%d;\nendmodule\n" % n)
PY
[ -s "$in/gen.c" ] || python3 - "$in/gen.c" <<'PY'
import random, sys
random.seed(1)
r = random.randrange
with open(sys.argv[1], "w") as f:
    f.write("#include <stdint.h>\n")
    for fn in range(40):
        f.write("uint64_t f%d(uint64_t *a, uint64_t x, uint64_t y) {\n" % fn)
        for _ in range(1280):
            f.write("  x = (x * %du) ^ (a[%d] + (y >> %d)); y += x | a[%d];\n" % (r(1 << 30), r(256), r(64), r(256)))
            if r(5) == 0:
                f.write("  if (x & %du) { a[%d] = y; } else { a[%d] = x; }\n" % (r(1 << 17), r(256), r(256)))
        f.write("  return x + y;\n}\n")
PY
[ -s "$in/lines.txt" ] || head -c 600M /dev/urandom | base64 -w 40 >"$in/lines.txt"
[ -s "$in/vvp-mem.vvp" ] || iverilog -o "$in/vvp-mem.vvp" "$here/vvp-mem.v"
for p in ${progs[@]}; do
	case $p in
	truth) ONE_ARGS= "$here/compare.sh" "$out" truth 0.9,0.75,0.6,0.45 -- "$in/truth" 512 12000000 3000 "$out/truth.log" 95 ;;
	dict) ONE_ARGS= "$here/compare.sh" "$out" dict 0.95,0.9,0.85 -- python3 "$in/dict.py" 1000000 80000000 8 ;;
	yosys) ONE_ARGS="--peak 2.2GiB" "$here/compare.sh" "$out" yosys 0.9,0.75,0.6,0.45 -- yosys -q -p "synth -top top" "$in/gen60.v" ;;
	gcc) ONE_ARGS="--peak 540MiB" "$here/compare.sh" "$out" gcc 0.9,0.75,0.6,0.45 -- gcc -O2 -c "$in/gen.c" -o /dev/null ;;
	ngspice) ONE_ARGS="--peak 3GiB" "$here/compare.sh" "$out" ngspice 0.9,0.75,0.6,0.45 -- ngspice -b "$here/spice-ladder.cir" ;;
	vvp) ONE_ARGS= "$here/compare.sh" "$out" vvp 0.9,0.75,0.6,0.45 -- vvp -n "$in/vvp-mem.vvp" ;;
	sort) LC_ALL=C ONE_ARGS= "$here/compare.sh" "$out" sort 0.9,0.75,0.6,0.45 -- sort --parallel=2 -S 2G -o /dev/null "$in/lines.txt" ;;
	*) echo "unknown program $p" >&2; exit 2 ;;
	esac
done
