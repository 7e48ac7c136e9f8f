#!/usr/bin/env bash
# Does LibreOffice Calc compute the same totals from memplan's workbook as
# memplan itself?
#
#   bench/libreoffice-check.sh [WORKLOAD.yaml] [MEMPLAN-FLAGS...]
#
# Runs `memplan recommend --format json` on the workload (default: the
# Intel study), renders the result with `memplan report --xlsx`, has
# LibreOffice open the workbook headless and export every sheet as CSV
# (with a profile that recalculates on load, so every number is Calc's
# own, not the value cached with the formula),
# and compares Calc's totals with the JSON: per-server and fleet cost of
# the recommendation and the baseline, the savings, the bill of materials,
# and every configuration's fleet cost and rank. Prints them side by side;
# exits 1 on any disagreement or any formula error in any sheet.
#
# Installs libreoffice-calc from the Debian archive when soffice is
# missing (a few minutes). The same check runs as a Go test whenever
# soffice is installed: go test ./reports/xlsx -run LibreOffice -v
set -euo pipefail
cd "$(dirname "$0")/.."

workload=${1:-examples/intel-eda-2009.yaml}
shift || true

need=()
command -v soffice >/dev/null || need+=(libreoffice-calc)
command -v python3 >/dev/null || need+=(python3)
if [ "${#need[@]}" -gt 0 ]; then
	echo "installing ${need[*]} (LibreOffice takes a few minutes)..." >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PATH="/usr/local/go/bin:$PATH"
go build -o "$tmp/memplan" ./cmd/memplan
"$tmp/memplan" recommend --workload "$workload" "$@" --format json --out "$tmp/plan.json"
"$tmp/memplan" report --from "$tmp/plan.json" --xlsx "$tmp/plan.xlsx"

# Every sheet (-1) as UTF-8 CSV with values rather than the displayed text.
# A private profile keeps this from colliding with a running LibreOffice;
# it recalculates every formula on load (by default LibreOffice shows the
# values cached with the formulas, which are memplan's own).
mkdir -p "$tmp/profile/user"
cat >"$tmp/profile/user/registrymodifications.xcu" <<'XCU'
<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
XCU
start=$(date +%s%N)
if ! HOME="$tmp" soffice -env:UserInstallation="file://$tmp/profile" --headless --norestore \
	--convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1,,1033,false,true,false,false,false,-1' \
	--outdir "$tmp/csv" "$tmp/plan.xlsx" >"$tmp/soffice.log" 2>&1; then
	cat "$tmp/soffice.log" >&2
	echo "libreoffice-check: soffice could not convert the workbook" >&2
	exit 1
fi
ms=$((($(date +%s%N) - start) / 1000000))
echo "LibreOffice $(soffice --version | awk '{print $2}') opened and recalculated the workbook for $workload in $((ms / 1000)).$((ms % 1000 / 100)) s"

python3 - "$tmp/plan.json" "$tmp/csv" <<'EOF'
import csv, json, os, sys

result, outdir = json.load(open(sys.argv[1])), sys.argv[2]

def sheet(name):
    path = os.path.join(outdir, "plan-%s.csv" % name)
    if not os.path.exists(path):
        sys.exit("libreoffice-check: LibreOffice exported no %s sheet" % name)
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))

sheets = {n: sheet(n) for n in ["Summary", "Configurations", "Bill of materials",
                                "DIMMs", "Drives", "Platforms", "Slowdown", "Charts"]}
failed = False
for name, rows in sheets.items():
    for r, row in enumerate(rows, 1):
        for c, v in enumerate(row, 1):
            if v.startswith("#") or v.startswith("Err:"):
                print("%s row %d column %d: LibreOffice computed %s" % (name, r, c, v))
                failed = True

def num(v):
    v = v.strip().replace(",", "")
    if v.endswith("%"):
        return float(v[:-1])
    return float(v)

def row_of(rows, label):
    for row in rows:
        if row and row[0] == label:
            return row
    sys.exit("libreoffice-check: no row %r in the workbook" % label)

lines = []
def compare(what, got, want):
    global failed
    try:
        ok = abs(num(got) - want) < 0.011
    except ValueError:
        ok = False
    failed |= not ok
    lines.append("%-42s %18.2f %18s  %s" % (what, want, got, "ok" if ok else "DIFFERS"))

summary, bom = sheets["Summary"], sheets["Bill of materials"]
rec, base, sav = result["recommended"], result["baseline"], result["savings"]
if rec:
    compare("recommended: cost per server", row_of(summary, "Cost per server")[1], rec["cost_per_server"])
    compare("recommended: fleet cost", row_of(summary, "Fleet cost")[1], rec["fleet_cost"])
    total = row_of(bom, "Total")
    compare("bill of materials: per server", total[6], rec["cost_per_server"])
    compare("bill of materials: fleet", total[7], rec["fleet_cost"])
    if row_of(summary, "ID")[1] != rec["id"]:
        print("LibreOffice recommends %s, memplan %s" % (row_of(summary, "ID")[1], rec["id"]))
        failed = True
if base:
    compare("baseline: cost per server", row_of(summary, "Cost per server")[2], base["cost_per_server"])
    compare("baseline: fleet cost", row_of(summary, "Fleet cost")[2], base["fleet_cost"])
if sav:
    compare("savings per server", row_of(summary, "Per server")[1], sav["per_server"])
    compare("savings for the fleet", row_of(summary, "Fleet")[1], sav["fleet"])
    compare("savings, % of the baseline", row_of(summary, "Share of the baseline's fleet cost")[1], sav["percent"])

configs = sheets["Configurations"]
head = configs[0]
col = {h: i for i, h in enumerate(head)}
fleet_col = [i for h, i in col.items() if h.startswith("Fleet cost")][0]
by_id = {row[col["ID"]]: row for row in configs[1:]}
bad_cost = bad_rank = 0
for c in result["configurations"]:
    row = by_id.get(c["id"])
    if row is None:
        print("configuration %s is not in the workbook" % c["id"])
        failed = True
        continue
    if abs(num(row[fleet_col]) - c["fleet_cost"]) >= 0.011:
        bad_cost += 1
        print("%s: fleet cost %s in LibreOffice, %.2f in memplan" % (c["id"], row[fleet_col], c["fleet_cost"]))
    if int(num(row[col["Rank"]])) != c["rank"]:
        bad_rank += 1
        print("%s: rank %s in LibreOffice, %d in memplan" % (c["id"], row[col["Rank"]], c["rank"]))
failed |= bad_cost > 0 or bad_rank > 0
n = len(result["configurations"])
lines.append("%-42s %18s %18s  %s" % ("fleet costs of all configurations", "%d" % n, "%d agree" % (n - bad_cost), "ok" if not bad_cost else "DIFFERS"))
lines.append("%-42s %18s %18s  %s" % ("ranks of all configurations", "%d" % n, "%d agree" % (n - bad_rank), "ok" if not bad_rank else "DIFFERS"))

print("%-42s %18s %18s" % ("(%s)" % result["currency"], "memplan JSON", "LibreOffice Calc"))
print("\n".join(lines))
if failed:
    sys.exit("libreoffice-check: LibreOffice disagrees with memplan")
print("libreoffice-check: LibreOffice Calc agrees with memplan")
EOF
