package quote

import (
	"slices"
	"strings"
	"testing"

	"github.com/memplan/memplan/units"
)

func TestRecogniseDIMM(t *testing.T) {
	for _, c := range []struct {
		text, gen, typ string
		gib            float64
		speed, kit     int
		missing        []string
	}{
		{"Samsung 64GB DDR5-5600 2Rx4 ECC RDIMM", "DDR5", "RDIMM", 64, 5600, 0, nil},
		{"64 GB DDR5 RDIMM 4800MT/s", "DDR5", "RDIMM", 64, 4800, 0, nil},
		{"Micron 128G DDR5 LRDIMM 4800 MHz", "DDR5", "LRDIMM", 128, 4800, 0, nil},
		{"HPE 64GB (1x64GB) Dual Rank x4 DDR5-4800 CAS-40-39-39 EC8 Registered Smart Memory Kit", "DDR5", "RDIMM", 64, 4800, 0, nil},
		{"Supermicro MEM-DR564MC-ER56 64GB DDR5-5600 2Rx4 (16Gb) ECC RDIMM", "DDR5", "RDIMM", 64, 5600, 0, nil},
		{"Kingston 32GB DDR4 PC4-25600 ECC Reg", "DDR4", "RDIMM", 32, 3200, 0, nil},
		{"Hynix 16GB PC4-2933Y registered", "DDR4", "RDIMM", 16, 2933, 0, nil},
		{"256GB DDR5-8800 MRDIMM", "DDR5", "MRDIMM", 256, 8800, 0, nil},
		{"32GB DDR5 UDIMM ECC 4800", "DDR5", "UDIMM", 32, 4800, 0, []string{}},
		{"32GB (2x16GB) DDR4-3200 RDIMM kit", "DDR4", "RDIMM", 16, 3200, 2, nil},
		{"64GB DDR5 server memory", "DDR5", "", 64, 0, 0, []string{"type", "speed"}},
		{"64GB RDIMM 4800MT/s", "", "RDIMM", 64, 4800, 0, []string{"generation"}},
		{"ThinkSystem 32GB TruDDR5 4800MHz (1Rx4) 10x4 RDIMM", "DDR5", "RDIMM", 32, 4800, 0, nil},
		{"Memory Upgrade - 64GB - 2RX4 DDR5 RDIMM 4800 MT/s", "DDR5", "RDIMM", 64, 4800, 0, nil},
	} {
		r := Recognise(c.text)
		if r.Kind != KindDIMM {
			t.Errorf("%q: kind %s (%s), want DIMM", c.text, r.Kind, r.Reason)
			continue
		}
		d := r.DIMM
		if d.Generation != c.gen || d.Type != c.typ || d.Capacity != units.Bytes(c.gib*float64(units.GiB)) || d.Speed != c.speed || r.KitOf != c.kit {
			t.Errorf("%q = %s %s %s %d kit %d, want %+v", c.text, d.Generation, d.Type, d.Capacity, d.Speed, r.KitOf, c)
		}
		if c.missing != nil && len(c.missing) > 0 && !slices.Equal(r.Missing, c.missing) {
			t.Errorf("%q: missing %v, want %v", c.text, r.Missing, c.missing)
		}
	}
}

func TestRecogniseDrive(t *testing.T) {
	for _, c := range []struct {
		text, class, nand string
		capacity          units.Bytes
		dwpd              float64
		tbw               units.Bytes
		rpm               int
		missing           []string
	}{
		{"Samsung PM9A3 3.84TB NVMe U.2 TLC 1 DWPD", "nvme-ssd", "TLC", 3.84e12, 1, 0, 0, nil},
		{"Solidigm D5-P5336 30.72TB QLC NVMe E3.S 0.58 DWPD", "nvme-ssd", "QLC", 30.72e12, 0.58, 0, 0, nil},
		{"Micron 7450 PRO 960GB NVMe M.2 TLC", "nvme-ssd", "TLC", 960e9, 0, 0, 0, nil},
		{"Samsung PM893 1.92TB SATA 6Gb/s SSD TLC 2.5in", "sata-ssd", "TLC", 1.92e12, 0, 0, 0, nil},
		{"Dell 3.84TB SSD vSAS Mixed Use 12Gbps 512e TLC", "sata-ssd", "TLC", 3.84e12, 3, 0, 0, nil},
		{"Intel X25-E 64GB SATA SSD SLC", "sata-ssd", "SLC", 64e9, 0, 0, 0, nil},
		{"Kingston DC600M 7,68TB SATA SSD TLC 7008TBW", "sata-ssd", "TLC", 7.68e12, 0, 7008e12, 0, nil},
		{"Seagate Exos 8TB 7200 RPM SATA HDD", "hdd", "", 8e12, 0, 0, 7200, nil},
		{"HGST 1.2TB 10K SAS 12G 2.5in hard drive", "hdd", "", 1.2e12, 0, 0, 10000, nil},
		{"WD 20TB NL-SAS 3.5in", "hdd", "", 20e12, 0, 0, 0, nil},
		{"3.84TB SSD read intensive", "", "", 3.84e12, 1, 0, 0, []string{"class", "nand"}},
		{"960GB M.2 SSD", "", "", 960e9, 0, 0, 0, []string{"class", "nand"}},
		{"ThinkSystem 2.5\" U.2 PM1733 3.84TB Read Intensive NVMe PCIe 4.0 x4 HS SSD", "nvme-ssd", "", 3.84e12, 1, 0, 0, []string{"nand"}},
		{"HPE 1.92TB NVMe Gen4 High Performance Read Intensive SFF BC U.3 CM6 SSD", "nvme-ssd", "", 1.92e12, 1, 0, 0, []string{"nand"}},
	} {
		r := Recognise(c.text)
		if r.Kind != KindDrive {
			t.Errorf("%q: kind %s (%s), want drive", c.text, r.Kind, r.Reason)
			continue
		}
		d := r.Drive
		if d.Class != c.class || d.NAND != c.nand || d.Capacity != c.capacity || d.DWPD != c.dwpd || d.TBW != c.tbw || r.RPM != c.rpm {
			t.Errorf("%q = %s %s %s dwpd %g tbw %s rpm %d, want %+v", c.text, d.Class, d.NAND, d.Capacity.DecimalString(), d.DWPD, d.TBW.DecimalString(), r.RPM, c)
		}
		if !slices.Equal(r.Missing, c.missing) {
			t.Errorf("%q: missing %v, want %v", c.text, r.Missing, c.missing)
		}
	}
}

func TestRecogniseOthers(t *testing.T) {
	for text, want := range map[string]string{
		"Intel Xeon Gold 6430 32C 2.1GHz":      "a CPU",
		"AMD EPYC 9554 64-core processor":      "a CPU",
		"Supermicro X13DEI motherboard":        "a motherboard",
		"Rails for PowerEdge R760":             "accessory",
		"ProSupport for servers, 3 years":      "service",
		"Broadcom 25GbE dual-port NIC":         "accessory",
		"ProSupport 3 years next business day": "service",
		"16GB DDR4 SO-DIMM 3200":               "SO-DIMM",
		"DDR5 RDIMM 4800":                      "no capacity",
		"NVMe U.2 backplane kit":               "accessory",
		"PCIe riser card":                      "accessory",
		"Cable management arm":                 "accessory",
		"Blue widget":                          "not recognised",
	} {
		r := Recognise(text)
		if r.Kind != KindUnknown || !strings.Contains(r.Reason, want) {
			t.Errorf("%q: %s %q, want unknown with %q", text, r.Kind, r.Reason, want)
		}
	}
}

func TestMatchRole(t *testing.T) {
	for label, want := range map[string]role{
		"Part #": roleSKU, "SKU": roleSKU, "P/N": roleSKU, "Mfr. Part No.": roleSKU, "Item No.": roleSKU,
		"Description": roleDesc, "Item Description": roleDesc, "Product": roleDesc,
		"Qty": roleQty, "Quantity": roleQty, "QTY.": roleQty,
		"Unit Price": rolePrice, "Price (USD)": rolePrice, "Price, €": rolePrice, "Price each": rolePrice, "Net Price": rolePrice,
		"Extended Price": roleTotal, "Ext. Price": roleTotal, "Line Total": roleTotal, "Amount": roleTotal,
		"Currency": roleCurrency, "#": roleNone, "Lead time": roleNone, "Discount": roleNone,
	} {
		if got, _ := matchRole(label); got != want {
			t.Errorf("matchRole(%q) = %d, want %d", label, got, want)
		}
	}
}

func TestRecognisePlatform(t *testing.T) {
	for _, c := range []struct {
		text       string
		sockets    int
		gen        string
		bays       int
		configured bool
	}{
		{"Dell PowerEdge R760 with 16x64GB DDR5", 0, "DDR5", 0, true},
		{"HPE ProLiant DL380 Gen11 8SFF", 0, "", 8, false},
		{"ThinkSystem SR650 V3 2x 32GB RDIMM", 0, "", 0, true},
		{"2U server chassis, 24 bays", 0, "", 24, false},
		{"Supermicro SYS-221H barebone, dual socket, DDR5, 12 x 2.5in NVMe bays", 2, "DDR5", 12, false},
		{"1U rack server 1P AMD EPYC 9004", 1, "", 0, false},
		{"PowerEdge R760 2 x Intel Xeon Gold 6430", 2, "", 0, false},
	} {
		r := Recognise(c.text)
		p := r.Platform
		if r.Kind != KindPlatform || p.Sockets != c.sockets || p.Memory.Generation != c.gen || p.Bays != c.bays || r.Configured != c.configured {
			t.Errorf("%q: %s sockets %d %q bays %d configured %v; want platform sockets %d %q bays %d configured %v (%s)",
				c.text, r.Kind, p.Sockets, p.Memory.Generation, p.Bays, r.Configured, c.sockets, c.gen, c.bays, c.configured, r.Reason)
		}
	}
}
