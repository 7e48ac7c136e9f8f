package prices_test

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// FuzzParseCatalog feeds prices.Parse arbitrary bytes. Properties:
//   - it never panics;
//   - a catalog it accepts is valid (see validCatalog) and can be merged and
//     priced without producing NaN or infinity;
//   - a rejection is a non-empty *yamlx.InputError for the file, matching
//     yamlx.ErrInput, whose message starts with the file name, whose line
//     lies within the file, and which names no Go type.
//
// Seeds: testdata/fuzz/FuzzParseCatalog (the embedded catalogs and broken
// variants) plus the ones added here.
func FuzzParseCatalog(f *testing.F) {
	for _, n := range prices.EmbeddedNames() {
		src, err := prices.EmbeddedSource(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte(baseCatalog))
	f.Add([]byte(eurCatalog))
	f.Add([]byte(""))
	f.Add([]byte("name: x\ncurrency: USD\ndate: 2026-03-01\nsource: s\n"))
	f.Add([]byte("name: x\ncurrency: USD\ndate: 2026-03-01\nsource: s\ndimms:\n  sku: D1\n"))
	f.Add([]byte("- a\n- b\n"))
	f.Add([]byte("name: &a [*a]\n"))
	f.Add([]byte(strings.Replace(baseCatalog, "read_iops: 900000", "read_iops: .nan", 1)))
	f.Add([]byte(strings.Replace(baseCatalog, "price: 360", "price: -360", 1)))
	f.Fuzz(func(t *testing.T, data []byte) {
		const file = "fuzz.yaml"
		c, err := prices.Parse(file, data)
		if err != nil {
			if c != nil {
				t.Fatalf("catalog returned along with error %v", err)
			}
			checkFuzzInputError(t, file, data, err)
			return
		}
		_, err = validCatalog(c)
		if err != nil {
			t.Fatalf("accepted an invalid catalog: %v", err)
		}
		// Accepted catalogs merge (when they have DIMMs and platforms) and
		// every price converts to the catalog's currency as a finite number.
		set, err := prices.Merge(c)
		if err != nil {
			if !errors.Is(err, yamlx.ErrInput) {
				t.Fatalf("Merge: %v is not an input error", err)
			}
			return
		}
		var all []units.Money
		for _, d := range set.DIMMs {
			all = append(all, d.Price)
		}
		for _, d := range set.Drives {
			all = append(all, d.Price)
		}
		for _, p := range set.Platforms {
			all = append(all, p.Price)
		}
		for _, m := range all {
			v, err := set.Convert(m, c.Currency)
			if err != nil {
				// A price in a currency with no rate is the model's to reject.
				if !errors.Is(err, yamlx.ErrInput) {
					t.Fatalf("Convert(%v): %v is not an input error", m, err)
				}
				continue
			}
			// A positive price below half a cent rounds to zero cents.
			if !v.Valid() || v < 0 {
				t.Fatalf("Convert(%v, %s) = %v", m, c.Currency, v)
			}
		}
	})
}

// yamlLines counts lines as YAML does: CR, LF, CRLF and (yaml.v3 follows YAML
// 1.1 here) NEL, LS and PS all end a line.
func yamlLines(data []byte) int {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	n := 1
	for _, r := range s {
		switch r {
		case '\n', '\r', '\u0085', '\u2028', '\u2029':
			n++
		}
	}
	return n
}

func checkFuzzInputError(t *testing.T, file string, data []byte, err error) {
	t.Helper()
	msg := err.Error()
	if msg == "" {
		t.Fatal("empty error message")
	}
	if !errors.Is(err, yamlx.ErrInput) {
		t.Fatalf("%T is not an input error: %v", err, err)
	}
	var ie *yamlx.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%T is not an *yamlx.InputError: %v", err, err)
	}
	if ie.File != file || !strings.HasPrefix(msg, file+":") {
		t.Fatalf("error does not name the file: %q", msg)
	}
	if ie.Msg == "" {
		t.Fatalf("error without a message: %q", msg)
	}
	if lines := yamlLines(data); ie.Line < 0 || ie.Line > lines+1 {
		t.Fatalf("line %d outside a %d-line file: %q", ie.Line, lines, msg)
	}
	if leak := goInternals.FindString(quoted.ReplaceAllString(ie.Msg+" "+ie.Hint, `""`)); leak != "" {
		if strings.Contains(msg, "cannot unmarshal") {
		}
		if strings.Contains(msg, "not found in type") {
		}
		t.Fatalf("message leaks Go internals (%q): %q", leak, msg)
	}
}

// quoted matches text the message echoes from the input, which may look
// like anything.
var quoted = regexp.MustCompile(`"[^"]*"`)

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// validCatalog restates the catalog rules independently of the code under
// test. A non-empty bug names the known bug that explains the violation.
func validCatalog(c *prices.Catalog) (bug string, err error) {
	const nonFinite = "catalog validation lets NaN/Inf through float fields (read_iops, write_iops, dwpd, warranty_years)"
	if strings.TrimSpace(c.Name) == "" {
		return "", errors.New("no name")
	}
	if !units.IsCurrencyCode(c.Currency) || c.Date.IsZero() || strings.TrimSpace(c.Source) == "" {
		return "", fmt.Errorf("currency %q, date %v, source %q", c.Currency, c.Date, c.Source)
	}
	if len(c.DIMMs)+len(c.Drives)+len(c.Platforms) == 0 {
		return "", errors.New("no parts")
	}
	for k, r := range c.Rates {
		if !units.IsCurrencyCode(k) || !units.IsCurrencyCode(r.Currency) || !(r.Amount > 0) || !finite(r.Amount) {
			return "", fmt.Errorf("rate %s: %+v", k, r)
		}
	}
	price := func(what string, m units.Money) error {
		if !(m.Amount > 0) || !finite(m.Amount) || !units.IsCurrencyCode(m.Currency) {
			return fmt.Errorf("%s: price %+v", what, m)
		}
		return nil
	}
	seen := map[string]bool{}
	sku := func(s string) error {
		if strings.TrimSpace(s) == "" || seen[s] {
			return fmt.Errorf("sku %q missing or repeated", s)
		}
		seen[s] = true
		return nil
	}
	in := func(v string, set ...string) bool {
		for _, s := range set {
			if v == s {
				return true
			}
		}
		return false
	}
	for _, d := range c.DIMMs {
		if err := sku(d.SKU); err != nil {
			return "", err
		}
		if !in(d.Generation, "DDR3", "DDR4", "DDR5") || !in(d.Type, "RDIMM", "LRDIMM", "UDIMM", "MRDIMM") || d.Capacity < units.GiB || d.Speed < 0 || d.Catalog != c.Name {
			return "", fmt.Errorf("DIMM %+v", d)
		}
		if err := price(d.SKU, d.Price); err != nil {
			return "", err
		}
	}
	for _, d := range c.Drives {
		if err := sku(d.SKU); err != nil {
			return "", err
		}
		if !finite(d.ReadIOPS, d.WriteIOPS, d.DWPD, d.Warranty) {
			return nonFinite, fmt.Errorf("drive %s: non-finite figures %+v", d.SKU, d)
		}
		ssd := d.Class == prices.ClassSATASSD || d.Class == prices.ClassNVMe
		if !(ssd || d.Class == prices.ClassHDD) || (ssd && !in(d.NAND, "SLC", "MLC", "TLC", "QLC")) || (!ssd && d.NAND != "") {
			return "", fmt.Errorf("drive %s: class %q nand %q", d.SKU, d.Class, d.NAND)
		}
		if d.Capacity <= 0 || d.ReadLatency <= 0 || d.WriteLatency <= 0 || !(d.ReadIOPS > 0) || !(d.WriteIOPS > 0) {
			return "", fmt.Errorf("drive %s: %+v", d.SKU, d)
		}
		if d.DWPD < 0 || d.TBW < 0 || d.Warranty < 0 || d.Endurance() < 0 || (ssd && d.Endurance() == 0) {
			return "", fmt.Errorf("drive %s: endurance %v (dwpd %g, tbw %v, warranty %g)", d.SKU, d.Endurance(), d.DWPD, d.TBW, d.Warranty)
		}
		if err := price(d.SKU, d.Price); err != nil {
			return "", err
		}
	}
	for _, p := range c.Platforms {
		if err := sku(p.SKU); err != nil {
			return "", err
		}
		if err := price(p.SKU, p.Price); err != nil {
			return "", err
		}
		m := p.Memory
		if !in(m.Generation, "DDR3", "DDR4", "DDR5") || len(m.Types) == 0 || m.Channels <= 0 || m.Slots <= 0 || m.Slots%m.Channels != 0 {
			return "", fmt.Errorf("platform %s: memory %+v", p.SKU, m)
		}
		for _, ty := range m.Types {
			if !in(ty, "RDIMM", "LRDIMM", "UDIMM", "MRDIMM") {
				return "", fmt.Errorf("platform %s: type %q", p.SKU, ty)
			}
		}
		for _, cl := range p.Classes {
			if !in(cl, prices.ClassHDD, prices.ClassSATASSD, prices.ClassNVMe) {
				return "", fmt.Errorf("platform %s: drive class %q", p.SKU, cl)
			}
		}
		for _, s := range p.Software {
			if !in(s, "zram", "zswap") {
				return "", fmt.Errorf("platform %s: software %q", p.SKU, s)
			}
		}
		if p.Bays < 0 || p.Reserve < 0 || p.Sockets < 0 {
			return "", fmt.Errorf("platform %s: bays %d reserve %v sockets %d", p.SKU, p.Bays, p.Reserve, p.Sockets)
		}
	}
	return "", nil
}
