package prices_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// baseCatalog is valid. Bad-input cases below edit single lines of it, so
// the line numbers in the comments are the ones errors must report.
const baseCatalog = `name: test
currency: USD
date: 2026-03-01
source: unit test
rates:
  EUR: 1.10 USD
dimms:
  - sku: D64
    model: 64 GB DDR5 RDIMM
    generation: DDR5
    type: RDIMM
    capacity: 64GiB
    speed: 5600
    price: 700 USD
  - sku: D32
    model: 32 GB DDR5 RDIMM
    generation: DDR5
    type: RDIMM
    capacity: 32GiB
    speed: 5600
    price: 360
drives:
  - sku: TLC
    model: 1.92 TB TLC NVMe
    class: nvme-ssd
    nand: TLC
    capacity: 1.92TB
    price: 260 USD
    read_latency: 85us
    write_latency: 20us
    read_iops: 900000
    write_iops: 120000
    dwpd: 1
  - sku: HDD
    model: 250 GB HDD
    class: hdd
    capacity: 250GB
    price: 40 USD
    read_latency: 8500us
    write_latency: 9500us
    read_iops: 110
    write_iops: 100
platforms:
  - sku: P1
    model: 2S server
    price: 12500 USD
    sockets: 2
    memory:
      generation: DDR5
      types: [RDIMM]
      slots: 32
      channels: 16
      max_dimm_capacity: 128GiB
    drive_bays: 8
    drive_classes: [nvme-ssd, sata-ssd]
    os_reserve: 8GiB
    software_swap: [zram, zswap]
`

// lineEdit replaces line n (1-based) of src, which must contain old (a
// guard against miscounting), with repl; an empty repl deletes the line and
// a repl with newlines inserts several.
type lineEdit struct {
	n         int
	old, repl string
}

func edit(t *testing.T, src string, edits ...lineEdit) string {
	t.Helper()
	lines := strings.Split(src, "\n")
	// Apply from the bottom so earlier line numbers stay valid.
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if e.n < 1 || e.n > len(lines) || !strings.Contains(lines[e.n-1], e.old) {
			t.Fatalf("line %d is %q, expected it to contain %q", e.n, lines[e.n-1], e.old)
		}
		if e.repl == "" {
			lines = append(lines[:e.n-1], lines[e.n:]...)
		} else {
			lines[e.n-1] = e.repl
		}
	}
	return strings.Join(lines, "\n")
}

// wantErr is what one bad file's error must say.
type wantErr struct {
	line  int    // exact line, 0 = the file as a whole
	field string // exact field path, "" = none
	has   []string
}

// goInternals matches Go type names and runtime text a person editing YAML
// should never see.
var goInternals = regexp.MustCompile(`\b(prices|units|yamlx)\.[A-Z]\w*|\[\][a-z]|map\[|goroutine|panic:`)

// checkErrPosition checks only that err is an input error for file at the
// wanted line and field, for rows whose message is wrong by a known bug.
func checkErrPosition(t *testing.T, file string, err error, w wantErr) {
	t.Helper()
	var ie *yamlx.InputError
	if !errors.Is(err, yamlx.ErrInput) || !errors.As(err, &ie) {
		t.Fatalf("not an *yamlx.InputError: %v", err)
	}
	if ie.File != file || ie.Line != w.line || ie.Field != w.field {
		t.Errorf("got %s:%d field %q, want %s:%d field %q: %v", ie.File, ie.Line, ie.Field, file, w.line, w.field, err)
	}
}

func checkErr(t *testing.T, file string, err error, w wantErr) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", file)
	}
	msg := err.Error()
	if !errors.Is(err, yamlx.ErrInput) {
		t.Errorf("errors.Is(err, yamlx.ErrInput) = false: %v", err)
	}
	var ie *yamlx.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%T is not an *yamlx.InputError: %v", err, err)
	}
	if ie.File != file {
		t.Errorf("file %q, want %q", ie.File, file)
	}
	prefix := file + ": "
	if w.line > 0 {
		prefix = fmt.Sprintf("%s:%d:", file, w.line)
	}
	if !strings.HasPrefix(msg, prefix) || ie.Line != w.line {
		t.Errorf("want the message to start with %q (line %d), got line %d: %q", prefix, w.line, ie.Line, msg)
	}
	if ie.Field != w.field {
		t.Errorf("field %q, want %q: %q", ie.Field, w.field, msg)
	}
	if w.field != "" && !strings.Contains(msg, "field "+w.field+":") {
		t.Errorf("message does not name field %s: %q", w.field, msg)
	}
	for _, h := range w.has {
		if !strings.Contains(msg, h) {
			t.Errorf("message lacks %q: %q", h, msg)
		}
	}
	if leak := goInternals.FindString(msg); leak != "" {
		t.Errorf("message leaks Go internals (%q): %q", leak, msg)
	}
}

func TestParseBase(t *testing.T) {
	c, err := prices.Parse("base.yaml", []byte(baseCatalog))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "test" || c.File != "base.yaml" || c.Date.String() != "2026-03-01" {
		t.Errorf("catalog %q from %q dated %s", c.Name, c.File, c.Date)
	}
	// A bare price takes the catalog's currency; every part knows its catalog.
	if got := c.DIMMs[1].Price; got != (units.Money{Amount: 360, Currency: "USD"}) {
		t.Errorf("bare price = %+v, want 360 USD", got)
	}
	for _, p := range []string{c.DIMMs[0].Catalog, c.Drives[1].Catalog, c.Platforms[0].Catalog} {
		if p != "test" {
			t.Errorf("part catalog %q, want test", p)
		}
	}
	if r := c.Rates["EUR"]; r != (units.Money{Amount: 1.1, Currency: "USD"}) {
		t.Errorf("rate %+v", r)
	}
	d := c.Drives[0]
	if d.Capacity != 1920e9 || d.ReadLatency.String() != "85us" || d.FactorClass() != "nvme-ssd-tlc" {
		t.Errorf("drive %+v", d)
	}
	// 1 DWPD over the default 5-year warranty.
	if got, want := d.Endurance(), units.Bytes(1920e9*365*5); got != want {
		t.Errorf("Endurance = %d, want %d", got, want)
	}
	if h := c.Drives[1]; h.FactorClass() != "hdd" || h.Endurance() != 0 {
		t.Errorf("hdd class %q endurance %d", h.FactorClass(), h.Endurance())
	}
}

// A bare rate takes the catalog's currency: in an EUR catalog, `USD: 0.92`
// means one USD buys 0.92 EUR.
func TestBareRateTakesCatalogCurrency(t *testing.T) {
	src := edit(t, baseCatalog, lineEdit{2, "currency", "currency: EUR"}, lineEdit{6, "EUR: 1.10 USD", "  USD: 0.92"})
	c, err := prices.Parse("eur.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if r := c.Rates["USD"]; r != (units.Money{Amount: 0.92, Currency: "EUR"}) {
		t.Errorf("rate = %+v, want 0.92 EUR", r)
	}
}

func TestParseBadInput(t *testing.T) {
	tests := []struct {
		name  string
		edits []lineEdit
		src   string // used instead of edits when set
		want  wantErr
	}{
		{name: "unknown field", edits: []lineEdit{{13, "speed", "    sped: 5600"}},
			want: wantErr{13, "dimms[0].sped", []string{"unknown field", "check the spelling"}}},
		{name: "unknown top-level field", edits: []lineEdit{{4, "source", "sauce: unit test"}},
			want: wantErr{4, "sauce", []string{"unknown field"}}},
		{name: "unknown field in platform memory", edits: []lineEdit{{53, "max_dimm", "      max_dimm: 128GiB"}},
			want: wantErr{53, "platforms[0].memory.max_dimm", []string{"unknown field"}}},
		{name: "wrong unit for capacity", edits: []lineEdit{{12, "capacity", "    capacity: 64 gigs"}},
			want: wantErr{12, "dimms[0].capacity", []string{`got "64 gigs"`, `expected a size such as "48GiB"`}}},
		{name: "wrong unit for latency", edits: []lineEdit{{29, "read_latency", "    read_latency: 85 micros"}},
			want: wantErr{29, "drives[0].read_latency", []string{`got "85 micros"`, "expected a duration"}}},
		{name: "lower-case currency in price", edits: []lineEdit{{14, "price", "    price: 700 usd"}},
			want: wantErr{14, "dimms[0].price", []string{`got "700 usd"`, "expected an amount with a currency"}}},
		{name: "text where a number goes", edits: []lineEdit{{13, "speed", "    speed: fast"}},
			want: wantErr{13, "dimms[0].speed", []string{`got text "fast"`, "expected a whole number"}}},
		{name: "negative price", edits: []lineEdit{{21, "price", "    price: -360"}},
			want: wantErr{21, "dimms[1].price", []string{"got -360.00 USD", "expected a price above zero", "prices must be positive"}}},
		{name: "zero drive price", edits: []lineEdit{{28, "price", "    price: 0 USD"}},
			want: wantErr{28, "drives[0].price", []string{"got 0.00 USD", "expected a price above zero"}}},
		{name: "zero platform price", edits: []lineEdit{{46, "price", "    price: 0"}},
			want: wantErr{46, "platforms[0].price", []string{"expected a price above zero"}}},
		{name: "negative rate", edits: []lineEdit{{6, "EUR", "  EUR: -1.10 USD"}},
			want: wantErr{6, "rates.EUR", []string{"expected a positive amount", "EUR: 1.08 USD"}}},
		{name: "rate in a non-currency", edits: []lineEdit{{6, "EUR", "  EUR: 1.10 dollars"}},
			want: wantErr{6, "rates.EUR", []string{`got "1.10 dollars"`, "expected an amount with a currency"}}},
		{name: "rate for a non-code", edits: []lineEdit{{6, "EUR", "  eur: 1.10 USD"}},
			want: wantErr{6, "rates.eur", []string{`"eur" is not a three-letter currency code`}}},
		{name: "duplicate sku", edits: []lineEdit{{15, "sku: D32", "  - sku: D64"}},
			want: wantErr{15, "dimms[1].sku", []string{`duplicate sku "D64"`, "also at dimms[0]"}}},
		{name: "duplicate sku across kinds", edits: []lineEdit{{44, "sku: P1", "  - sku: TLC"}},
			want: wantErr{44, "platforms[0].sku", []string{`duplicate sku "TLC"`, "also at drives[0]"}}},
		{name: "missing sku", edits: []lineEdit{{34, "sku: HDD", "  - sku: \"\""}},
			want: wantErr{34, "drives[1].sku", []string{"missing", "unique sku"}}},
		{name: "unknown DIMM generation", edits: []lineEdit{{10, "generation", "    generation: DDR6"}},
			want: wantErr{10, "dimms[0].generation", []string{`got "DDR6"`, "expected one of DDR3, DDR4, DDR5"}}},
		{name: "unknown DIMM type", edits: []lineEdit{{18, "type", "    type: SODIMM"}},
			want: wantErr{18, "dimms[1].type", []string{`got "SODIMM"`, "expected one of RDIMM"}}},
		{name: "DIMM below 1GiB", edits: []lineEdit{{19, "capacity", "    capacity: 512MiB"}},
			want: wantErr{19, "dimms[1].capacity", []string{"got 512MiB", "at least 1GiB"}}},
		{name: "negative speed", edits: []lineEdit{{20, "speed", "    speed: -1"}},
			want: wantErr{20, "dimms[1].speed", []string{"got -1", "MT/s"}}},
		{name: "unknown drive class", edits: []lineEdit{{25, "class", "    class: ssd"}},
			want: wantErr{25, "drives[0].class", []string{`got "ssd"`, "expected one of hdd, sata-ssd, nvme-ssd"}}},
		{name: "SSD without NAND", edits: []lineEdit{{26, "nand", ""}},
			want: wantErr{23, "drives[0].nand", []string{`got ""`, "expected one of SLC, MLC, TLC, QLC"}}},
		{name: "HDD with NAND", edits: []lineEdit{{36, "class: hdd", "    class: hdd\n    nand: TLC"}},
			want: wantErr{37, "drives[1].nand", []string{"an HDD has no NAND type"}}},
		{name: "zero read IOPS", edits: []lineEdit{{31, "read_iops", "    read_iops: 0"}},
			want: wantErr{31, "drives[0].read_iops", []string{"missing or not positive"}}},
		{name: "missing write latency", edits: []lineEdit{{30, "write_latency", ""}},
			want: wantErr{23, "drives[0].write_latency", []string{"missing or zero", "20us"}}},
		{name: "SSD without endurance", edits: []lineEdit{{33, "dwpd", ""}},
			want: wantErr{23, "drives[0]", []string{"SSD without an endurance rating", "tbw"}}},
		{name: "negative endurance", edits: []lineEdit{{33, "dwpd", "    dwpd: -1"}},
			want: wantErr{33, "drives[0].dwpd", []string{"cannot be negative"}}},
		{name: "slots not a multiple of channels", edits: []lineEdit{{51, "slots", "      slots: 30"}},
			want: wantErr{51, "platforms[0].memory.slots", []string{"got 30 slots for 16 channels", "multiple of the channel count"}}},
		{name: "zero channels", edits: []lineEdit{{52, "channels", "      channels: 0"}},
			want: wantErr{52, "platforms[0].memory.channels", []string{"missing or not positive"}}},
		{name: "unknown DIMM type on platform", edits: []lineEdit{{50, "types", "      types: [RDIMM, XDIMM]"}},
			want: wantErr{50, "platforms[0].memory.types[1]", []string{`got "XDIMM"`}}},
		{name: "unknown drive class on platform", edits: []lineEdit{{55, "drive_classes", "    drive_classes: [nvme-ssd, floppy]"}},
			want: wantErr{55, "platforms[0].drive_classes[1]", []string{`got "floppy"`, "expected one of hdd, sata-ssd, nvme-ssd"}}},
		{name: "unknown software swap", edits: []lineEdit{{57, "software_swap", "    software_swap: [zram, zcache]"}},
			want: wantErr{57, "platforms[0].software_swap[1]", []string{`got "zcache"`, "expected one of zram, zswap"}}},
		{name: "negative bays", edits: []lineEdit{{54, "drive_bays", "    drive_bays: -1"}},
			want: wantErr{54, "platforms[0].drive_bays", []string{"cannot be negative"}}},
		{name: "DIMM speed for more DIMMs per channel than the slots allow", edits: []lineEdit{{53, "max_dimm_capacity", "      max_dimm_capacity: 128GiB\n      dimm_speed: {1: 5600, 2: 4400, 3: 4000}"}},
			want: wantErr{54, "platforms[0].memory.dimm_speed.3", []string{"got 3 DIMMs per channel, expected 1 to 2", "32 slots, 16 channels"}}},
		{name: "DIMM speed missing a count", edits: []lineEdit{{53, "max_dimm_capacity", "      max_dimm_capacity: 128GiB\n      dimm_speed: {1: 5600}"}},
			want: wantErr{54, "platforms[0].memory.dimm_speed", []string{"no speed for 2 DIMMs per channel", "{1: 5600, 2: 4400}"}}},
		{name: "DIMM speed zero", edits: []lineEdit{{53, "max_dimm_capacity", "      max_dimm_capacity: 128GiB\n      dimm_speed:\n        1: 5600\n        2: 0"}},
			want: wantErr{56, "platforms[0].memory.dimm_speed.2", []string{"got 0, expected MT/s such as 4400"}}},
		{name: "DIMM speed rising with DIMMs per channel", edits: []lineEdit{{53, "max_dimm_capacity", "      max_dimm_capacity: 128GiB\n      dimm_speed:\n        1: 4400\n        2: 5600"}},
			want: wantErr{56, "platforms[0].memory.dimm_speed.2", []string{"got 5600 MT/s for 2 DIMMs per channel, faster than 4400 for 1", "the speed stays or falls"}}},
		{name: "DIMM speed as text", edits: []lineEdit{{53, "max_dimm_capacity", "      max_dimm_capacity: 128GiB\n      dimm_speed: {1: fast, 2: 4400}"}},
			want: wantErr{54, "platforms[0].memory.dimm_speed.1", []string{`got text "fast"`, "expected a whole number"}}},
		{name: "lower-case catalog currency", edits: []lineEdit{{2, "currency", "currency: usd"}},
			want: wantErr{2, "currency", []string{`got "usd"`, "expected a three-letter currency code", "ISO 4217"}}},
		{name: "missing currency", edits: []lineEdit{{2, "currency", ""}},
			want: wantErr{0, "currency", []string{"expected a three-letter currency code"}}},
		{name: "bad date", edits: []lineEdit{{3, "date", "date: last spring"}},
			want: wantErr{3, "date", []string{`got "last spring"`, `expected a date such as "2026-03-01"`}}},
		{name: "missing date", edits: []lineEdit{{3, "date", ""}},
			want: wantErr{0, "date", []string{"missing, expected a date"}}},
		{name: "missing source", edits: []lineEdit{{4, "source", ""}},
			want: wantErr{0, "source", []string{"missing", "name the quote"}}},
		{name: "empty catalog", src: "name: empty\ncurrency: USD\ndate: 2026-03-01\nsource: nothing yet\n",
			want: wantErr{1, "", []string{"catalog is empty", "add at least one of dimms:, drives:, platforms:"}}},
		{name: "empty lists", src: "name: empty\ncurrency: USD\ndate: 2026-03-01\nsource: nothing yet\ndimms: []\ndrives: []\n",
			want: wantErr{1, "", []string{"catalog is empty"}}},
		{name: "empty file", src: "",
			want: wantErr{0, "", []string{"file is empty", "docs/input-files.md"}}},
		{name: "only comments", src: "# prices to follow\n\n",
			want: wantErr{0, "", []string{"file is empty"}}},
		{name: "two documents", src: baseCatalog + "---\n" + baseCatalog,
			want: wantErr{58, "", []string{"more than one YAML document", "---"}}},
		{name: "unclosed quote", edits: []lineEdit{{24, "model", `    model: "1.92 TB TLC NVMe`}},
			want: wantErr{24, "", []string{"YAML syntax", "end of stream", "check indentation and quoting"}}},
		{name: "over-indented key", edits: []lineEdit{{27, "capacity", "      capacity: 1.92TB"}},
			want: wantErr{27, "", []string{"YAML syntax", "mapping values are not allowed"}}},
		{name: "duplicate key", edits: []lineEdit{{4, "source", "source: unit test\nname: again"}},
			want: wantErr{5, "name", []string{`mapping key "name" already defined at line 1`}}},
		{name: "scalar where a list is expected", edits: []lineEdit{{50, "types", "      types: RDIMM"}},
			want: wantErr{50, "platforms[0].memory.types", []string{`got text "RDIMM"`, "expected a list"}}},
		// Known bugs.
		{name: "a mapping where a list is expected", src: "name: x\ncurrency: USD\ndate: 2026-03-01\nsource: s\ndimms:\n  sku: D1\n  price: 1 USD\n",
			want: wantErr{6, "dimms", []string{"got a mapping", "expected a list"}}},
		{name: "a list where a mapping is expected", edits: []lineEdit{{49, "generation", "      - generation: DDR5"},
			{50, "types", "        types: [RDIMM]"}, {51, "slots", "        slots: 32"}, {52, "channels", "        channels: 16"},
			{53, "max_dimm_capacity", "        max_dimm_capacity: 128GiB"}},
			want: wantErr{49, "platforms[0].memory", []string{"got a list", "expected a mapping"}}},
		{name: "a list for the whole file", src: "- sku: D1\n- sku: D2\n",
			want: wantErr{1, "", []string{"got a list", "expected a mapping"}}},
		{name: "NaN IOPS", edits: []lineEdit{{31, "read_iops", "    read_iops: .nan"}},
			want: wantErr{31, "drives[0].read_iops", []string{"expected a finite number"}}},
		{name: "infinite DWPD", edits: []lineEdit{{33, "dwpd", "    dwpd: .inf"}},
			want: wantErr{33, "drives[0].dwpd", []string{"dwpd"}}},
		{name: "rate of a currency into itself", edits: []lineEdit{{6, "EUR", "  USD: 2 USD"}},
			want: wantErr{6, "rates.USD", []string{"USD"}}},
		{name: "unknown key with a space", edits: []lineEdit{{54, "drive_bays", "    drive bays: 8"}},
			want: wantErr{54, "platforms[0].drive bays", []string{"unknown field"}}},
		{name: "tab on line 1", src: "\tname: x\n",
			want: wantErr{1, "", []string{"YAML syntax"}}},
		{name: "mis-indented price", edits: []lineEdit{{14, "price", "  price: 700 USD"}},
			want: wantErr{14, "", []string{"YAML syntax"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			if src == "" && tt.edits != nil {
				src = edit(t, baseCatalog, tt.edits...)
			}
			c, err := prices.Parse("catalog.yaml", []byte(src))
			if err == nil {
				t.Fatalf("no error; parsed catalog %q", c.Name)
			}
			if c != nil {
				t.Errorf("partial catalog returned along with the error")
			}
			checkErr(t, "catalog.yaml", err, tt.want)
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "my-prices.yaml")
	bad := edit(t, baseCatalog, lineEdit{21, "price", "    price: -360"})
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := prices.Load(p)
	checkErr(t, p, err, wantErr{21, "dimms[1].price", []string{"expected a price above zero"}})

	_, err = prices.Load(filepath.Join(dir, "nope.yaml"))
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(p, []byte(baseCatalog), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := prices.Load(p)
	if err != nil || c.File != p {
		t.Errorf("Load: %v, file %q", err, c.File)
	}
}

func TestEmbeddedCatalogs(t *testing.T) {
	names := prices.EmbeddedNames()
	if strings.Join(names, ",") != "current,intel-2009" {
		t.Errorf("EmbeddedNames = %v", names)
	}
	for _, n := range names {
		c, err := prices.Embedded(n)
		if err != nil {
			t.Fatalf("embedded %s: %v", n, err)
		}
		if c.File != "embedded:"+n || c.Name != n || c.Date.IsZero() || c.Source == "" {
			t.Errorf("%s: file %q name %q date %s source %q", n, c.File, c.Name, c.Date, c.Source)
		}
		if len(c.DIMMs) == 0 || len(c.Drives) == 0 || len(c.Platforms) == 0 {
			t.Errorf("%s: %d DIMMs, %d drives, %d platforms", n, len(c.DIMMs), len(c.Drives), len(c.Platforms))
		}
		set, err := prices.Merge(c)
		if err != nil {
			t.Fatal(err)
		}
		if cs := set.Currencies(); len(cs) != 1 || cs[0] != c.Currency {
			t.Errorf("%s: currencies %v, want only %s", n, cs, c.Currency)
		}
		// Every DIMM fits some platform of its own catalog.
		for _, d := range c.DIMMs {
			ok := false
			for _, p := range c.Platforms {
				a, _ := p.Accepts(d)
				ok = ok || a
			}
			if !ok {
				t.Errorf("%s: DIMM %s fits no platform", n, d.SKU)
			}
		}
		src, err := prices.EmbeddedSource(n)
		if err != nil || !strings.Contains(string(src), "name: "+n) {
			t.Errorf("EmbeddedSource(%s): %v", n, err)
		}
	}
	// The Intel study's figures.
	intel, _ := prices.Embedded("intel-2009")
	byS := map[string]units.Money{}
	for _, d := range intel.DIMMs {
		byS[d.SKU] = d.Price
	}
	for _, d := range intel.Drives {
		byS[d.SKU] = d.Price
	}
	for sku, want := range map[string]units.Money{
		"DDR3-1066-RDIMM-4G": {Amount: 4600, Currency: "RUB"},
		"DDR3-1066-RDIMM-8G": {Amount: 11500, Currency: "RUB"},
		"SSDSA2SH064G1":      {Amount: 27000, Currency: "RUB"},
	} {
		if byS[sku] != want {
			t.Errorf("%s = %v, want %v", sku, byS[sku], want)
		}
	}
	_, err := prices.Embedded("nope")
	if err == nil || !errors.Is(err, yamlx.ErrInput) || !strings.Contains(err.Error(), "current, intel-2009") {
		t.Errorf("unknown embedded catalog: %v", err)
	}
}

func TestPlatformRules(t *testing.T) {
	c, err := prices.Parse("base.yaml", []byte(baseCatalog))
	if err != nil {
		t.Fatal(err)
	}
	p := c.Platforms[0]
	d := c.DIMMs[0]
	if ok, why := p.Accepts(d); !ok {
		t.Errorf("rejects its own DIMM: %s", why)
	}
	for _, tt := range []struct {
		mod  func(*prices.DIMM)
		want string
	}{
		{func(d *prices.DIMM) { d.Generation = "DDR4" }, "P1 takes DDR5, not DDR4"},
		{func(d *prices.DIMM) { d.Type = "LRDIMM" }, "P1 takes RDIMM, not LRDIMM"},
		{func(d *prices.DIMM) { d.Capacity = 256 * units.GiB }, "P1 takes DIMMs up to 128GiB, not 256GiB"},
	} {
		x := d
		tt.mod(&x)
		if ok, why := p.Accepts(x); ok || why != tt.want {
			t.Errorf("Accepts = %v %q, want false %q", ok, why, tt.want)
		}
	}
	// Generation and type match regardless of case.
	x := d
	x.Generation, x.Type = "ddr5", "rdimm"
	if ok, _ := p.Accepts(x); !ok {
		t.Error("case-sensitive generation/type match")
	}
	p.Memory.MinSpeed = 6400
	if ok, why := p.Accepts(d); ok || !strings.Contains(why, "at least 6400 MT/s") {
		t.Errorf("min speed: %v %q", ok, why)
	}
	pl := c.Platforms[0]
	if !pl.AcceptsDrive(c.Drives[0]) || pl.AcceptsDrive(c.Drives[1]) {
		t.Error("drive_classes [nvme-ssd, sata-ssd] should take the NVMe drive and not the HDD")
	}
	pl.Classes = nil
	if !pl.AcceptsDrive(c.Drives[1]) {
		t.Error("no drive_classes should take any drive")
	}
	pl.Bays = 0
	if pl.AcceptsDrive(c.Drives[0]) {
		t.Error("a platform without bays took a drive")
	}
	if !pl.HasSoftware("zram") || !pl.HasSoftware("zswap") || pl.HasSoftware("zcache") {
		t.Error("HasSoftware")
	}
}

func TestMergeOverridesBySKU(t *testing.T) {
	// Named as Embedded names a built-in catalog: a quote replaces its
	// list prices.
	base, err := prices.Parse("embedded:base", []byte(baseCatalog))
	if err != nil {
		t.Fatal(err)
	}
	override := `name: quote
currency: USD
date: 2026-04-01
source: vendor quote
dimms:
  - sku: D64
    model: 64 GB DDR5 RDIMM (quoted)
    generation: DDR5
    type: RDIMM
    capacity: 64GiB
    speed: 5600
    price: 650 USD
  - sku: D128
    model: 128 GB DDR5 RDIMM
    generation: DDR5
    type: RDIMM
    capacity: 128GiB
    speed: 5600
    price: 1500 USD
`
	q, err := prices.Parse("quote.yaml", []byte(override))
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(base, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.DIMMs) != 3 || len(set.Drives) != 2 || len(set.Platforms) != 1 {
		t.Fatalf("merged %d DIMMs, %d drives, %d platforms", len(set.DIMMs), len(set.Drives), len(set.Platforms))
	}
	// The override keeps the original's position and takes the new price.
	if d := set.DIMMs[0]; d.SKU != "D64" || d.Price.Amount != 650 || d.Catalog != "quote" {
		t.Errorf("DIMMs[0] = %s %v from %s, want D64 650 USD from quote", d.SKU, d.Price, d.Catalog)
	}
	if set.DIMMs[2].SKU != "D128" {
		t.Errorf("new SKU not appended: %v", set.DIMMs[2].SKU)
	}
	if len(set.Catalogs) != 2 {
		t.Errorf("Catalogs = %d", len(set.Catalogs))
	}
}

func TestMergeRefusesOnePartInTwoQuotes(t *testing.T) {
	eur := "name: eur-quote\ncurrency: EUR\ndate: 2026-04-01\nsource: vendor A\ndimms:\n" +
		"  - {sku: D64, model: 64 GB, generation: DDR5, type: RDIMM, capacity: 64GiB, speed: 5600, price: 600}\n"
	usd := "name: usd-quote\ncurrency: USD\ndate: 2026-04-02\nsource: vendor B\ndimms:\n" +
		"  - {sku: D32, model: 32 GB, generation: DDR5, type: RDIMM, capacity: 32GiB, speed: 5600, price: 330}\n" +
		"  - {sku: D64, model: 64 GB, generation: DDR5, type: RDIMM, capacity: 64GiB, speed: 5600, price: 640}\n"
	a, err := prices.Parse("a.yaml", []byte(eur))
	if err != nil {
		t.Fatal(err)
	}
	b, err := prices.Parse("b.yaml", []byte(usd))
	if err != nil {
		t.Fatal(err)
	}
	base, err := prices.Parse("embedded:base", []byte(baseCatalog))
	if err != nil {
		t.Fatal(err)
	}
	_, err = prices.MergeWith(prices.Flags{Prices: "--prices"}, base, a, b)
	want := `b.yaml:7:11: field dimms[1].sku: "D64" is quoted here at 640.00 USD and also in a.yaml:6 (catalog eur-quote) at 600.00 EUR; ` +
		`memplan will not pick one of two quotes for one part (give each offer its own sku, e.g. "D64 (usd-quote)", so both are weighed and the cheaper wins, or leave one file out)`
	if err == nil || !errors.Is(err, yamlx.ErrInput) || err.Error() != want {
		t.Errorf("two quotes of D64:\n got %v\nwant %s", err, want)
	}
	// The same file twice says so.
	_, err = prices.MergeWith(prices.Flags{Prices: "--prices"}, base, a, a)
	if err == nil || !strings.Contains(err.Error(), "(the same file is given twice with --prices; give it once)") {
		t.Errorf("a file given twice: %v", err)
	}
	// Either quote alone overrides the list price.
	for _, q := range []*prices.Catalog{a, b} {
		if _, err := prices.Merge(base, q); err != nil {
			t.Errorf("%s over the list prices: %v", q.File, err)
		}
	}
}

func TestMergeNeedsDIMMsAndPlatforms(t *testing.T) {
	noDIMMs := "name: d\ncurrency: USD\ndate: 2026-01-01\nsource: s\n" + strings.Join(strings.Split(baseCatalog, "\n")[21:], "\n")
	c, err := prices.Parse("drives.yaml", []byte(noDIMMs))
	if err != nil {
		t.Fatal(err)
	}
	_, err = prices.Merge(c)
	if err == nil || !errors.Is(err, yamlx.ErrInput) || !strings.Contains(err.Error(), "drives.yaml") || !strings.Contains(err.Error(), "list no DIMMs") {
		t.Errorf("Merge without DIMMs: %v", err)
	}
	onlyDIMMs := edit(t, baseCatalog)
	onlyDIMMs = strings.Join(strings.Split(onlyDIMMs, "\n")[:21], "\n") + "\n"
	c, err = prices.Parse("dimms.yaml", []byte(onlyDIMMs))
	if err != nil {
		t.Fatal(err)
	}
	_, err = prices.Merge(c)
	if err == nil || !errors.Is(err, yamlx.ErrInput) || !strings.Contains(err.Error(), "list no platforms") {
		t.Errorf("Merge without platforms: %v", err)
	}
	// The library names no flag; a caller that offers one has it suggested.
	if strings.Contains(err.Error(), "--") || !strings.Contains(err.Error(), "add platforms to your quote, or name both in the workload") {
		t.Errorf("Merge without flags: %v", err)
	}
	_, err = prices.MergeWith(prices.Flags{WithEmbedded: "--list-too"}, c)
	if err == nil || !strings.Contains(err.Error(), "add platforms to your quote, add the embedded list prices with --list-too, or name both") {
		t.Errorf("MergeWith a flag: %v", err)
	}
}

const eurCatalog = `name: eu
currency: EUR
date: 2026-03-01
source: EU distributor quote
drives:
  - sku: EU-TLC
    model: 3.84 TB TLC NVMe (EU)
    class: nvme-ssd
    nand: TLC
    capacity: 3.84TB
    price: 400
    read_latency: 85us
    write_latency: 20us
    read_iops: 1100000
    write_iops: 180000
    dwpd: 1
`

func TestRatesAndConvert(t *testing.T) {
	base, err := prices.Parse("base.yaml", []byte(baseCatalog)) // EUR: 1.10 USD
	if err != nil {
		t.Fatal(err)
	}
	eu, err := prices.Parse("eu.yaml", []byte(eurCatalog))
	if err != nil {
		t.Fatal(err)
	}
	rub := "name: ru\ncurrency: RUB\ndate: 2026-03-01\nsource: s\nrates:\n  USD: 80\n" +
		"platforms:\n  - sku: RU\n    model: m\n    price: 1000000\n    memory: {generation: DDR5, types: [RDIMM], slots: 8, channels: 8}\n    drive_bays: 0\n    os_reserve: 4GiB\n"
	ru, err := prices.Parse("ru.yaml", []byte(rub))
	if err != nil {
		t.Fatal(err)
	}
	set, err := prices.Merge(base, eu, ru)
	if err != nil {
		t.Fatal(err)
	}
	if cs := strings.Join(set.Currencies(), ","); cs != "EUR,RUB,USD" {
		t.Errorf("Currencies = %s", cs)
	}
	for _, tt := range []struct {
		from, to string
		want     float64
	}{
		{"USD", "USD", 1},
		{"EUR", "USD", 1.10},
		{"USD", "EUR", 1 / 1.10},
		{"USD", "RUB", 80},
		{"RUB", "USD", 1.0 / 80},
		// Through one intermediate currency.
		{"EUR", "RUB", 1.10 * 80},
		{"RUB", "EUR", 1 / (1.10 * 80)},
	} {
		got, ok := set.Rate(tt.from, tt.to)
		if !ok || math.Abs(got-tt.want) > 1e-9*tt.want {
			t.Errorf("Rate(%s, %s) = %g, %v; want %g", tt.from, tt.to, got, ok, tt.want)
		}
	}
	v, err := set.Convert(eu.Drives[0].Price, "USD")
	if err != nil || v != money.Units(440) {
		t.Errorf("400 EUR in USD = %v, %v; want exactly 440.00", v, err)
	}
	_, err = set.Convert(units.Money{Amount: 1, Currency: "JPY"}, "USD")
	if err == nil || !errors.Is(err, yamlx.ErrInput) || !strings.Contains(err.Error(), "JPY and USD") || !strings.Contains(err.Error(), "rates:") {
		t.Errorf("Convert without a rate: %v", err)
	}
	if strings.Contains(err.Error(), "--") {
		t.Errorf("Convert names a flag the caller did not give: %v", err)
	}
	set.Flags = prices.Flags{Rate: "--fx", Rates: "--fx-file"}
	if _, err = set.Convert(units.Money{Amount: 1, Currency: "JPY"}, "USD"); err == nil || !strings.Contains(err.Error(), "rate; pass --fx JPY=<amount>USD (or --fx-file FILE), add `rates: {JPY: <amount> USD}`") {
		t.Errorf("Convert without a rate, with the caller's flags: %v", err)
	}
	if _, ok := set.Rate("JPY", "EUR"); ok {
		t.Error("rate invented for JPY")
	}
}

// Catalog.ErrorAt on a catalog built in Go (no decoded document) returns a
// plain error that errors.Is(err, yamlx.ErrInput) does not match, so a
// caller mapping input errors to an exit code treats it as an internal
// failure.
func TestErrorAtWithoutDocumentIsInputError(t *testing.T) {
	c := &prices.Catalog{Name: "built", File: "built-in-go"}
	err := c.ErrorAt("dimms[0]", "", "bad")
	if !errors.Is(err, yamlx.ErrInput) {
		t.Errorf("ErrorAt = %v, not an input error", err)
	}
}

// Merging nothing is an input error, not an index out of range: a workload
// that names no catalog reached Merge with none in a test.
func TestMergeOfNoCatalogsIsAnInputError(t *testing.T) {
	_, err := prices.Merge()
	if !errors.Is(err, yamlx.ErrInput) || !strings.Contains(err.Error(), "no price catalog") {
		t.Errorf("Merge(): %v, want an input error saying there is no price catalog", err)
	}
}
