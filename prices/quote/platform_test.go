package quote

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// serverQuote is a build-to-order quote: a server base line, its CPUs,
// DIMMs and a drive, as Dell and Lenovo configurators export them.
const serverQuote = `Quote date: 2026-03-01
SKU,Description,Qty,Unit Price (USD),Ext. Price
R760-BASE,"PowerEdge R760 2U rack server chassis, dual socket, 8 x 2.5in bays",10,"6,900.00","69,000.00"
338-CHSV,Intel Xeon Gold 6430 32C 2.1GHz,20,"2,150.00","43,000.00"
370-AHCL,64GB DDR5-4800 RDIMM 2Rx4,160,455.00,"72,800.00"
400-BMQW,3.84TB NVMe U.2 TLC SSD 1 DWPD,10,310.00,"3,100.00"
SR650-CFG,ThinkSystem SR650 V3 with 16x 32GB RDIMM,1,"21,000.00","21,000.00"
`

func TestImportPlatforms(t *testing.T) {
	wb, err := ReadCSV("dell.csv", []byte(serverQuote))
	if err != nil {
		t.Fatal(err)
	}
	res := mustImport(t, wb, Options{})
	pls := res.Catalog.Platforms
	if len(pls) != 2 {
		t.Fatalf("%d platforms, want 2:\n%s", len(pls), res.YAML)
	}
	p := pls[0]
	if p.SKU != "R760-BASE" || p.Price.Amount != 6900 || p.Price.Currency != "USD" || p.Sockets != 2 || p.Bays != 8 ||
		p.Memory.Generation != "DDR5" || p.Memory.Slots <= 0 || p.Memory.Channels <= 0 || p.Memory.Slots%p.Memory.Channels != 0 {
		t.Errorf("platform %+v", p)
	}
	if !strings.Contains(p.Source, "placeholders") || !strings.Contains(p.Source, "memory.generation from the quote's DIMMs") {
		t.Errorf("platform source %q does not say what is not from the quote", p.Source)
	}
	fill := rows(res.FillByHand)
	if fill[3] != "memory.generation, memory.types, memory.slots, memory.channels, drive_classes, os_reserve, software_swap" {
		t.Errorf("row 3 fill in by hand: %q", fill[3])
	}
	if !strings.Contains(fill[7], "sockets") || !strings.Contains(fill[7], "drive_bays") {
		t.Errorf("row 7 fill in by hand: %q (states neither sockets nor bays)", fill[7])
	}
	if w := rows(res.Warnings)[7]; !strings.Contains(w, "must not include the DIMMs") {
		t.Errorf("configured server: warning %q", w)
	}
	if un := rows(res.Unclassified)[4]; !strings.Contains(un, "a CPU") {
		t.Errorf("CPU row: %q", un)
	}
	for _, want := range []string{"platforms:", "# row 3: \"PowerEdge R760", "fill in by hand from the server's specification: memory.generation", "sockets: 2"} {
		if !strings.Contains(string(res.YAML), want) {
			t.Errorf("YAML lacks %q:\n%s", want, res.YAML)
		}
	}
	// The quote alone is a catalog a plan can be made from.
	if _, err := prices.Merge(res.Catalog); err != nil {
		t.Errorf("the imported quote alone does not merge: %v", err)
	}
}

func TestImportPlatformNeedsGeneration(t *testing.T) {
	date, _ := units.ParseDate("2026-03-01")
	q := "SKU,Description,Qty,Unit Price (USD)\nS1,2U server chassis 2S,1,5000\nD4,64GB DDR4-3200 RDIMM,8,300\nD5,64GB DDR5-4800 RDIMM,8,455\n"
	wb, err := ReadCSV("q.csv", []byte(q))
	if err != nil {
		t.Fatal(err)
	}
	res := mustImport(t, wb, Options{Date: date})
	if len(res.Catalog.Platforms) != 0 || !strings.Contains(rows(res.Unclassified)[2], "--dimm-generation") {
		t.Errorf("platforms %d, row 2 %q; want it refused for want of a generation", len(res.Catalog.Platforms), rows(res.Unclassified)[2])
	}
	res = mustImport(t, wb, Options{Date: date, Fill: Fill{DIMMGeneration: "DDR4"}})
	if len(res.Catalog.Platforms) != 1 || res.Catalog.Platforms[0].Memory.Generation != "DDR4" {
		t.Errorf("with --dimm-generation DDR4: %+v", res.Catalog.Platforms)
	}
}

func TestImportCPUsAddToTheirServer(t *testing.T) {
	one := strings.Replace(serverQuote, "SR650-CFG,ThinkSystem SR650 V3 with 16x 32GB RDIMM,1,\"21,000.00\",\"21,000.00\"\n", "", 1)
	wb, err := ReadCSV("dell.csv", []byte(one))
	if err != nil {
		t.Fatal(err)
	}
	res := mustImport(t, wb, Options{})
	// 6,900 for the base + 20 CPUs x 2,150 over 10 servers.
	if p := res.Catalog.Platforms[0]; p.Price.Amount != 11200 || !strings.Contains(p.Source, "plus its CPU lines") {
		t.Errorf("platform price %s, source %q; want 11200 USD with the CPUs", p.Price, p.Source)
	}
	if sk := rows(res.Skipped)[4]; !strings.Contains(sk, "added to platform R760-BASE (row 3)") {
		t.Errorf("CPU row: %q", sk)
	}
	if len(res.Unclassified) != 0 {
		t.Errorf("not recognised: %v", res.Unclassified)
	}
	if !strings.Contains(string(res.YAML), "price includes row 4's CPUs (20 x 2150.00 / 10 servers = 4300.00 a server)") {
		t.Errorf("the catalog does not show the sum:\n%s", res.YAML)
	}
}
