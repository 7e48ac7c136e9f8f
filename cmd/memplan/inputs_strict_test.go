package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/inputfile"
)

// strictWorkload is a valid workload to break one line of at a time.
const strictWorkload = `name: strict
horizon: 3y
jobs:
  - name: regression
    footprint: 48GiB
    runtime: 5h
    concurrency: 16
    deadline: 8h
    jobs_per_day: 640
`

// strictCatalog is a valid catalog to break one line of at a time.
const strictCatalog = `name: q
currency: EUR
date: 2026-03-01
source: test
dimms:
  - {sku: A, model: a, generation: DDR5, type: RDIMM, capacity: 64GiB, speed: 4800, price: 700.15}
platforms:
  - {sku: P, model: p, price: 1000, memory: {generation: DDR5, types: [RDIMM], slots: 16, channels: 8}, drive_bays: 0, os_reserve: 8GiB}
`

// writeFiles writes name -> content into a new directory and returns it.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestInputsNotSilentlyAccepted: what was accepted with exit 0 and no word
// (issue 27), and errors that pointed at the wrong place, are refused with
// one line naming the file, line and field, exit 2 and nothing written.
func TestInputsNotSilentlyAccepted(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		args  []string // "DIR" is replaced by the files' directory
		want  string   // stderr, with DIR replaced
	}{
		{
			name:  "fractional concurrency",
			files: map[string]string{"w.yaml": strings.Replace(strictWorkload, "concurrency: 16", "concurrency: 12.5", 1)},
			args:  []string{"recommend", "-w", "DIR/w.yaml"},
			want:  "memplan: DIR/w.yaml:7:18: field jobs[0].concurrency: got 12.5, expected a whole number\n",
		},
		{
			name: "merge key",
			files: map[string]string{"w.yaml": `name: strict
jobs:
  - &base
    name: regression
    footprint: 48GiB
    runtime: 5h
    deadline: 8h
    jobs_per_day: 640
  - <<: *base
    name: other
`},
			args: []string{"recommend", "-w", "DIR/w.yaml"},
			want: "memplan: DIR/w.yaml:9:5: field jobs[1].<<: YAML merge keys (<<) are not supported (write the fields out in full; an anchor may stand for a whole value (price: *p), not for fields to merge)\n",
		},
		{
			name:  "price that rounds to nothing",
			files: map[string]string{"w.yaml": strictWorkload, "q.yaml": strings.Replace(strictCatalog, "price: 700.15", "price: 0.001 EUR", 1)},
			args:  []string{"recommend", "-w", "DIR/w.yaml", "--prices", "DIR/q.yaml"},
			want:  "memplan: DIR/q.yaml:6:92: field dimms[0].price: got 0.001 EUR, expected a price of at least 0.01 EUR (check the decimal point; memplan counts money in hundredths of the currency)\n",
		},
		{
			name:  "contradictory rates in a rates file",
			files: map[string]string{"w.yaml": strictWorkload, "r.yaml": "date: 2026-03-01\nsource: ECB\nrates:\n  EUR: 1.08 USD\n  USD: 0.5 EUR\n"},
			args:  []string{"recommend", "-w", "DIR/w.yaml", "--rates", "DIR/r.yaml"},
			want:  "memplan: DIR/r.yaml:5:8: field rates.USD: USD: 0.5 EUR contradicts EUR: 1.08 USD (line 4), by which one USD buys 0.9259 EUR (give one direction of each pair; the other is its inverse)\n",
		},
		{
			name:  "contradictory rates in a catalog",
			files: map[string]string{"w.yaml": strictWorkload, "q.yaml": strings.Replace(strictCatalog, "source: test\n", "source: test\nrates: {USD: 2 EUR, EUR: 1.08 USD}\n", 1)},
			args:  []string{"recommend", "-w", "DIR/w.yaml", "--prices", "DIR/q.yaml"},
			want:  "memplan: DIR/q.yaml:5:26: field rates.EUR: EUR: 1.08 USD contradicts USD: 2 EUR (line 5), by which one EUR buys 0.5 USD (give one direction of each pair; the other is its inverse)\n",
		},
		{
			name: "slowdown with everything in RAM",
			files: map[string]string{"w.yaml": strictWorkload, "f.yaml": `name: t
source: s
curves:
  - class: nvme-ssd-tlc
    provenance: published
    source: x
    reference:
      read_latency: 85us
    points:
      - fit: 1
        slowdown: 1.5
      - fit: 0.5
        slowdown: 2
`},
			args: []string{"recommend", "-w", "DIR/w.yaml", "--factors", "DIR/f.yaml"},
			want: "memplan: DIR/f.yaml:11:19: field curves[0].points[0].slowdown: got 1.5 at fit 1, where the job is all in RAM; expected 1 (at most 1.1 for run-to-run noise) (at fit 1 nothing is swapped; measure the point as the reference or leave it out)\n",
		},
		{
			name:  "horizon beyond the bound",
			files: map[string]string{"w.yaml": strings.Replace(strictWorkload, "horizon: 3y", "horizon: 500y", 1)},
			args:  []string{"recommend", "-w", "DIR/w.yaml"},
			want:  "memplan: DIR/w.yaml:2:10: field horizon: got \"500y\": too long: expected a duration of at most 200 years\n",
		},
		{
			name:  "a fixed fleet of no servers",
			files: map[string]string{"w.yaml": strings.Replace(strings.Replace(strictWorkload, "    jobs_per_day: 640\n", "", 1), "horizon: 3y\n", "horizon: 3y\ndemand: {servers: 0}\n", 1)},
			args:  []string{"recommend", "-w", "DIR/w.yaml"},
			want:  "memplan: DIR/w.yaml:3:19: field demand.servers: got 0, expected a positive number of servers (1 or more) (a fixed fleet needs at least 1 server; leave demand out to size the fleet from jobs_per_day)\n",
		},
		{
			name:  "JSON syntax error",
			files: map[string]string{"w.yaml": strictWorkload, "f.json": "{\n  \"name\": \"t\",\n  \"source\": \"s\",\n  \"curves\": [\n    {\n      \"class\": \"x\",\n      \"provenance\": \"published\"\n      \"source\": \"x\"\n    }\n  ]\n}\n"},
			args:  []string{"recommend", "-w", "DIR/w.yaml", "--factors", "DIR/f.json"},
			want:  "memplan: DIR/f.json:8:7: JSON syntax: invalid character '\"' after object key:value pair (check for a missing comma, quote or bracket just before)\n",
		},
		{
			name:  "profile naming a price catalog",
			files: map[string]string{"w.yaml": strictWorkload + "    profile: q.yaml\n", "q.yaml": strictCatalog},
			args:  []string{"recommend", "-w", "DIR/w.yaml"},
			want:  "memplan: DIR/w.yaml:10:14: field jobs[0].profile: DIR/q.yaml is a price catalog, not a profile (name the file `memplan profile` wrote for this job)\n",
		},
		{
			name:  "factors naming a price catalog",
			files: map[string]string{"w.yaml": strictWorkload, "q.yaml": strictCatalog},
			args:  []string{"recommend", "-w", "DIR/w.yaml", "--factors", "DIR/q.yaml"},
			want:  "memplan: DIR/q.yaml: this is a price catalog, not a factor file (or profile) (give price catalogs with --prices)\n",
		},
		{
			name:  "prices naming a workload",
			files: map[string]string{"w.yaml": strictWorkload},
			args:  []string{"recommend", "-w", "DIR/w.yaml", "--prices", "DIR/w.yaml"},
			want:  "memplan: DIR/w.yaml: this is a workload, not a price catalog (give the workload with -w/--workload)\n",
		},
		{
			name:  "os_reserve larger than the platform holds",
			files: map[string]string{"w.yaml": strictWorkload, "q.yaml": strings.Replace(strictCatalog, "os_reserve: 8GiB", "os_reserve: 4TiB", 1)},
			args:  []string{"recommend", "-w", "DIR/w.yaml", "--prices", "DIR/q.yaml"},
			want:  "memplan: DIR/q.yaml:8:132: field platforms[0].os_reserve: got 4TiB, which leaves nothing for the jobs: P holds at most 1TiB (16 x 64GiB A) (memory kept for the OS and page cache, e.g. 8GiB)\n",
		},
		{
			name:  "currency mix without a rate",
			files: map[string]string{"w.yaml": strings.Replace(strictWorkload, "horizon: 3y\n", "horizon: 3y\ncurrency: RUB\n", 1), "q.yaml": strictCatalog},
			args:  []string{"recommend", "-w", "DIR/w.yaml", "--prices", "DIR/q.yaml"},
			want:  "memplan: DIR/w.yaml:3:11: field currency: got RUB, but the prices of catalog q (DIR/q.yaml) are in EUR and no exchange rate connects the two (pass --rate EUR=<amount>RUB or --rates FILE, add `rates: {EUR: <amount> RUB}` to a catalog, or leave `currency:` out to report in the catalogs' currency)\n",
		},
		{
			// Two catalog currencies: leaving currency: out would not
			// help, so the hint does not offer it.
			name: "currency mix of two catalogs without a rate",
			files: map[string]string{"w.yaml": strings.Replace(strictWorkload, "horizon: 3y\n", "horizon: 3y\ncurrency: RUB\n", 1), "q.yaml": strictCatalog,
				"u.yaml": "name: u\ncurrency: USD\ndate: 2026-03-01\nsource: test\ndimms:\n  - {sku: U64, model: 64 GB, generation: DDR5, type: RDIMM, capacity: 64GiB, speed: 5600, price: 700 USD}\n"},
			args: []string{"recommend", "-w", "DIR/w.yaml", "--prices", "DIR/q.yaml", "--prices", "DIR/u.yaml", "--rate", "USD=90RUB"},
			want: "memplan: DIR/w.yaml:3:11: field currency: got RUB, but the prices of catalog q (DIR/q.yaml) are in EUR and no exchange rate connects the two (pass --rate EUR=<amount>RUB or --rates FILE, add `rates: {EUR: <amount> RUB}` to a catalog; the catalogs are in EUR and USD, so leaving `currency:` out would need a rate between them too)\n",
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, c.files)
			out := filepath.Join(dir, "out.json")
			var args []string
			for _, a := range c.args {
				args = append(args, strings.ReplaceAll(a, "DIR", dir))
			}
			args = append(args, "--out", out)
			code, stdout, stderr := runMemplan(t, args...)
			want := strings.ReplaceAll(c.want, "DIR", dir)
			if code != exitUsage || stderr != want {
				t.Errorf("exit %d, stderr\n%s\nwant exit 2 and\n%s", code, stderr, want)
			}
			if stdout != "" {
				t.Errorf("stdout %q, want nothing", stdout)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("wrote %s", out)
			}
		})
	}
}

// "-" reads the workload from standard input, bounded like a file, and
// messages name it "standard input".
func TestWorkloadFromStdin(t *testing.T) {
	defer func(r io.Reader) { inputfile.Stdin = r }(inputfile.Stdin)
	inputfile.Stdin = strings.NewReader(strings.Replace(strictWorkload, "concurrency: 16", "concurrency: 1.5", 1))
	code, stdout, stderr := runMemplan(t, "recommend", "-w", "-")
	if want := "memplan: standard input:7:18: field jobs[0].concurrency: got 1.5, expected a whole number\n"; code != exitUsage || stderr != want || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr\n%s\nwant exit 2 and\n%s", code, stdout, stderr, want)
	}
	inputfile.Stdin = strings.NewReader(strictWorkload)
	if code, _, stderr := runMemplan(t, "recommend", "-w", "-"); code != 0 {
		t.Errorf("a good workload on standard input: exit %d, %s", code, stderr)
	}
}
