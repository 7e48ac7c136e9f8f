package quote

import (
	"strconv"
	"strings"

	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
)

// Kind is what a quote line was recognised as.
type Kind int

const (
	KindUnknown Kind = iota
	KindDIMM
	KindDrive
	KindPlatform
)

func (k Kind) String() string {
	switch k {
	case KindDIMM:
		return "DIMM"
	case KindDrive:
		return "drive"
	case KindPlatform:
		return "platform"
	}
	return "unknown"
}

// Recognised is what the text of one quote line says about the part. The
// DIMM or Drive carries only what the text states (no SKU, model or price);
// Missing names what a catalog entry needs and the text did not say.
type Recognised struct {
	Kind     Kind
	DIMM     prices.DIMM
	Drive    prices.Drive
	Platform prices.Platform
	// Configured is set for a server line that lists parts it comes
	// with ("PowerEdge R760 with 16x64GB"): its price may include them.
	Configured bool
	// CPU is set for a processor line (Kind stays KindUnknown): its price
	// is part of a platform's.
	CPU bool
	// KitOf is N for "2x32GB" kits: the quoted price buys N modules.
	KitOf int
	ECC   bool
	RPM   int
	// Endurance says where Drive.DWPD or Drive.TBW came from: stated as
	// DWPD or TBW, or (EnduranceClass) read from a vendor endurance class
	// such as "Mixed Use", which is a convention rather than a rating.
	Endurance      string
	EnduranceClass bool
	// Missing lists catalog fields the text does not tell: "generation",
	// "type", "speed" (DIMMs; speed is optional), "class", "nand" (drives),
	// "generation", "sockets", "drive_bays" (platforms).
	Missing []string
	// Notes are remarks for the reviewer ("SAS SSD filed as sata-ssd").
	Notes []string
	// Reason says why the line is not a part (Kind == KindUnknown).
	Reason string
}

func (r Recognised) missing(f string) bool {
	for _, m := range r.Missing {
		if m == f {
			return true
		}
	}
	return false
}

var (
	reGen        = lazy(`(?:\b|TRU)DDR([345])`) // Lenovo writes TruDDR5
	rePC         = lazy(`\bPC([345])L?-(\d{4,5})`)
	reDDRSpeed   = lazy(`\bDDR[345]L?[- ]?(\d{4})\b`)
	reUnitSpeed  = lazy(`\b(\d{4})\s*(?:MT/S|MTS|MT|MHZ)\b`)
	reBareSpeed  = lazy(`(?:^|[\s,(])(\d{4})(?:$|[\s,)])`)
	reMRDIMM     = lazy(`\bMC?R-?DIMMS?\b|MULTIPLEXED[- ]RANK`)
	reLRDIMM     = lazy(`\bLR-?DIMMS?\b|LOAD[- ]?REDUCED`)
	reRDIMM      = lazy(`\bR-?DIMMS?\b|REGISTERED|\bREG\b`)
	reUDIMM      = lazy(`\bU-?DIMMS?\b|UNBUFFERED`)
	reSODIMM     = lazy(`\bSO-?DIMMS?\b|\bSODIMMS?\b`)
	reDIMMWord   = lazy(`\bDIMMS?\b|\bMEMORY\b|\bRAM\b`)
	reECC        = lazy(`\bECC\b`)
	reKit        = lazy(`(?i)\b(\d{1,2})\s*[X×]\s*(\d+(?:\.\d+)?)\s*(GB|GIB|G)\b`)
	reCapacity   = lazy(`(?i)(\d+(?:[.,]\d+)?)\s*(TB|TIB|GB|GIB|T|G)\b(\s*(?:B?PS|B?/S|SAS|SATA))?`)
	reNVMe       = lazy(`NVME|\bPCIE|\bPCI-E|\bU\.[23]\b|\bE[13]\.[SL]\b|\bEDSFF\b`)
	reSATA       = lazy(`\bSATA`)
	reSAS        = lazy(`\bV?SAS\d?\b`)
	reM2         = lazy(`\bM\.2\b`)
	reHDD        = lazy(`\bHDDS?\b|\bSSHD\b|HARD (?:DISK|DRIVE)|\bRPM\b|\bNL-?SAS\b|NEAR-?LINE|\b(?:5\.4|5\.9|7\.2|10|15)K\b`)
	reSSD        = lazy(`\bSSDS?\b|SOLID[- ]STATE|\bNAND\b|FLASH|\b[SMTQ]LC\b|\bDWPD\b|INTENSIVE|MIXED[- ]USE`)
	reRPM        = lazy(`\b(\d{4,5})\s*RPM\b|\b(\d{1,2}(?:\.\d)?)\s*K(?:\s*RPM)?\b`)
	reNAND       = lazy(`\b(SLC|MLC|TLC|QLC|EMLC|PSLC)\b|XL-?FLASH|Z-?NAND`)
	reDWPD       = lazy(`(\d+(?:[.,]\d+)?)\s*-?\s*DWPD\b|\bDWPD\s*[:=]?\s*(\d+(?:[.,]\d+)?)`)
	reTBW        = lazy(`(\d+(?:[.,]\d+)?)\s*(TBW|PBW)\b|\b(TBW|PBW)\s*[:=]?\s*(\d+(?:[.,]\d+)?)`)
	reWarranty   = lazy(`\b(\d{1,2})[- ]?(?:YR|YEAR)S?\s+(?:LIMITED\s+)?WARRANTY`)
	reCPU        = lazy(`\bXEON\b|\bEPYC\b|\bOPTERON\b|PROCESSOR|\bCPUS?\b`)
	reBoard      = lazy(`MOTHERBOARD|BASEBOARD|MAINBOARD`)
	reChassis    = lazy(`CHASSIS|BAREBONE|\b[1-4]U\s+(?:RACK|SYSTEM|NODE)\b`)
	reServerWord = lazy(`\bSERVERS?\b`)
	reSockets    = lazy(`\b([1-8])\s*-?\s*(?:S|P|SOCKETS?|WAY)\b|\b([1-8])\s*X\s*(?:INTEL|AMD|XEON|EPYC|CPUS?|PROCESSORS?)\b|\b(SINGLE|DUAL|QUAD)[- ]?(?:SOCKET|CPU|PROCESSOR)`)
	reBays       = lazy(`\b(\d{1,2})\s*(?:X\s*)?(?:(?:2\.5|3\.5)(?:"|IN(?:CH)?)?\s*)?(?:SFF|LFF|(?:(?:NVME|SAS|SATA|U\.[23]|E3\.S)\s+)?(?:DRIVE\s+)?BAYS?)\b`)
	// Server brands name their parts too ("ThinkSystem 32GB TruDDR5 ...
	// RDIMM"): a brand line is a server only if it is not a part, or is
	// one configured with parts ("PowerEdge R760 with 16x64GB").
	reServerBrand = lazy(`POWEREDGE|PROLIANT|THINKSYSTEM|SUPERSERVER|\bSYNERGY\b|\bPRIMERGY\b`)
	reConfigured  = lazy(`\bWITH\b|\bINCL|\bCONFIGURED\b|\b\d+\s*X\s*\d+(?:\.\d+)?\s*(?:GB|TB)\b`)
	reAccessory   = lazy(`POWER SUPPLY|\bPSU\b|\bNIC\b|ETHERNET|\bCABLE|\bRAILS?\b|BEZEL|\bFANS?\b|HEAT ?SINK|RAID CONTROLLER|\bHBA\b|RISER|\bGPU\b|BACKPLANE|\bCADDY\b|\bTRAY\b|TRANSCEIVER`)
	reService     = lazy(`WARRANTY|SUPPORT|SERVICE|INSTALLATION|LICEN[CS]E|SUBSCRIPTION|LABOU?R|CONFIGURATION FEE|ASSEMBLY`)
	reEndurClass  = []struct {
		re   *lazyRE
		name string
		dwpd float64
	}{
		{lazy(`READ[- ]INTENSIVE`), "Read Intensive", 1},
		{lazy(`MIXED[- ]USE`), "Mixed Use", 3},
		{lazy(`WRITE[- ]INTENSIVE`), "Write Intensive", 10},
	}
)

var jedecSpeeds = map[int]bool{
	1066: true, 1333: true, 1600: true, 1866: true, 2133: true, 2400: true, 2666: true, 2933: true, 3200: true,
	3600: true, 4000: true, 4400: true, 4800: true, 5200: true, 5600: true, 6000: true, 6400: true, 7200: true,
	8000: true, 8800: true,
}

// Recognise reads a quote line's description.
func Recognise(text string) Recognised {
	u := strings.ToUpper(text)
	var r Recognised
	dimmWord := reMRDIMM.MatchString(u) || reLRDIMM.MatchString(u) || reRDIMM.MatchString(u) ||
		reUDIMM.MatchString(u) || reSODIMM.MatchString(u) || strings.Contains(u, "DIMM")
	isDrive := reNVMe.MatchString(u) || reSATA.MatchString(u) || reSAS.MatchString(u) || reM2.MatchString(u) || reHDD.MatchString(u) || reSSD.MatchString(u)
	// A DIMM type decides; a bare DDR generation loses to drive words
	// ("NVMe SSD with DDR4 cache"), and "memory" alone needs a capacity.
	isDIMM := dimmWord || !isDrive && (reGen.MatchString(u) || rePC.MatchString(u) || reDIMMWord.MatchString(u) && dimmCapacity(text) > 0)
	brand := reServerBrand.MatchString(u)
	configured := reConfigured.MatchString(u)
	// A server line: a chassis or barebone ("12 x NVMe bays" names no
	// drive), or a server or brand name that is not a part, an accessory
	// or a service for one ("rails for PowerEdge", "ProSupport for
	// servers"), or one configured with parts.
	part := isDIMM || isDrive
	chassis, serverWord := reChassis.MatchString(u), reServerWord.MatchString(u)
	other := reAccessory.MatchString(u) || reService.MatchString(u)
	server := chassis || !part && (serverWord || brand) && !other || (brand || serverWord) && configured && !other
	switch {
	case server:
		recognisePlatform(u, configured, &r)
	case reCPU.MatchString(u) && !isDIMM && !isDrive:
		r.CPU = true
		r.Reason = "a CPU: a platform's price includes its CPUs, so add this line's price to the server's platform entry by hand"
	case reBoard.MatchString(u):
		r.Reason = "a motherboard: describe the server it goes into as a platform by hand (see docs/input-files.md)"
	case isDIMM:
		recogniseDIMM(text, u, &r)
	case isDrive:
		recogniseDrive(text, u, &r)
	case reAccessory.MatchString(u):
		r.Reason = "an accessory, not a DIMM or drive"
	case reService.MatchString(u):
		r.Reason = "a service or warranty line, not a part"
	default:
		r.Reason = "not recognised as a DIMM (no DDR generation, DIMM type or \"memory\") or a drive (no NVMe, SATA, SAS, SSD or HDD)"
	}
	return r
}

// dimmCapacity returns the module capacity a DIMM description states.
func dimmCapacity(text string) units.Bytes {
	if m := reKit.FindStringSubmatch(text); m != nil {
		v, _ := strconv.ParseFloat(m[2], 64)
		return units.Bytes(v * float64(units.GiB))
	}
	for _, m := range reCapacity.FindAllStringSubmatch(text, -1) {
		if gigabits(m) {
			continue
		}
		v, err := strconv.ParseFloat(strings.Replace(m[1], ",", ".", 1), 64)
		if err != nil {
			continue
		}
		switch strings.ToUpper(m[2]) {
		case "GB", "GIB", "G":
			return units.Bytes(v * float64(units.GiB))
		case "TB", "TIB", "T":
			return units.Bytes(v * float64(units.TiB))
		}
	}
	return 0
}

func recogniseDIMM(text, u string, r *Recognised) {
	r.Kind = KindDIMM
	d := &r.DIMM
	if reSODIMM.MatchString(u) {
		r.Kind, r.Reason = KindUnknown, "an SO-DIMM (laptop and small-form-factor memory), not a server DIMM"
		return
	}
	if m := rePC.FindStringSubmatch(u); m != nil {
		d.Generation = "DDR" + m[1]
		s, _ := strconv.Atoi(m[2])
		if len(m[2]) == 5 {
			s /= 8 // PC4-25600 is the module's MB/s: 3200 MT/s x 8 bytes
		}
		d.Speed = s
	}
	if m := reGen.FindStringSubmatch(u); m != nil {
		d.Generation = "DDR" + m[1]
	}
	if m := reDDRSpeed.FindStringSubmatch(u); m != nil {
		d.Speed, _ = strconv.Atoi(m[1])
	} else if m := reUnitSpeed.FindStringSubmatch(u); m != nil {
		d.Speed, _ = strconv.Atoi(m[1])
	} else if d.Speed == 0 {
		// A bare number counts only if it is a JEDEC data rate.
		for _, m := range reBareSpeed.FindAllStringSubmatch(u, -1) {
			if v, _ := strconv.Atoi(m[1]); jedecSpeeds[v] {
				d.Speed = v
				break
			}
		}
	}
	switch {
	case reMRDIMM.MatchString(u):
		d.Type = "MRDIMM"
	case reLRDIMM.MatchString(u):
		d.Type = "LRDIMM"
	case reRDIMM.MatchString(u):
		d.Type = "RDIMM"
	case reUDIMM.MatchString(u):
		d.Type = "UDIMM"
	}
	r.ECC = reECC.MatchString(u)
	if m := reKit.FindStringSubmatch(text); m != nil {
		if n, _ := strconv.Atoi(m[1]); n > 1 {
			r.KitOf = n
		}
	}
	d.Capacity = dimmCapacity(text)
	if d.Capacity == 0 {
		r.Kind, r.Reason = KindUnknown, "a DIMM, but no capacity such as 64GB in the description"
		return
	}
	if d.Generation == "" {
		r.Missing = append(r.Missing, "generation")
	}
	if d.Type == "" {
		r.Missing = append(r.Missing, "type")
	}
	if d.Speed == 0 {
		r.Missing = append(r.Missing, "speed")
	}
}

// gigabits tells a capacity match that is really gigabits: a chip density
// ("16Gb") or a link speed ("12Gb/s", "6GBps", "12G SAS").
func gigabits(m []string) bool {
	suffix := strings.ToUpper(strings.TrimSpace(m[3]))
	switch {
	case m[2] == "Gb" || m[2] == "Tb":
		return true
	case strings.Contains(suffix, "/S") || strings.HasSuffix(suffix, "PS"):
		return true
	case suffix != "" && len(m[2]) == 1: // "12G SAS"
		return true
	}
	return false
}

// driveCapacity prefers a capacity written with its full unit (3.84TB,
// 960GB) over a bare 4T or 960G, and skips link speeds (12Gb/s, 12G SAS).
func driveCapacity(text string) units.Bytes {
	var bare units.Bytes
	for _, m := range reCapacity.FindAllStringSubmatch(text, -1) {
		if gigabits(m) {
			continue
		}
		v, err := strconv.ParseFloat(strings.Replace(m[1], ",", ".", 1), 64)
		if err != nil || v <= 0 {
			continue
		}
		var b units.Bytes
		switch strings.ToUpper(m[2]) {
		case "TB", "T":
			b = units.Bytes(v * 1e12)
		case "TIB":
			b = units.Bytes(v * float64(units.TiB))
		case "GB", "G":
			b = units.Bytes(v * 1e9)
		case "GIB":
			b = units.Bytes(v * float64(units.GiB))
		}
		if len(m[2]) > 1 {
			return b
		}
		if bare == 0 {
			bare = b
		}
	}
	return bare
}

func recogniseDrive(text, u string, r *Recognised) {
	r.Kind = KindDrive
	d := &r.Drive
	d.Capacity = driveCapacity(text)
	if d.Capacity == 0 {
		r.Kind, r.Reason = KindUnknown, "mentions a drive interface or type but no capacity such as 3.84TB or 960GB"
		if reAccessory.MatchString(u) {
			r.Reason = "an accessory, not a DIMM or drive"
		}
		return
	}
	if d.Capacity < 1e9 {
		r.Kind, r.Reason = KindUnknown, "a capacity below 1 GB is not a swap drive"
		return
	}
	hdd, ssd := reHDD.MatchString(u), reSSD.MatchString(u)
	nvme, sata, sas, m2 := reNVMe.MatchString(u), reSATA.MatchString(u), reSAS.MatchString(u), reM2.MatchString(u)
	switch {
	case hdd && (ssd || nvme):
		r.Kind, r.Reason = KindUnknown, "names both HDD (rpm, HDD) and SSD features; say which with --drive-class"
		return
	case hdd:
		d.Class = prices.ClassHDD
	case nvme:
		d.Class = prices.ClassNVMe
	case ssd && (sata || sas):
		d.Class = prices.ClassSATASSD
		if sas && !sata {
			r.Notes = append(r.Notes, "SAS SSD filed as sata-ssd, the nearest class")
		}
	case ssd && m2:
		r.Missing = append(r.Missing, "class")
		r.Notes = append(r.Notes, "M.2 without NVMe or SATA")
	default:
		r.Missing = append(r.Missing, "class")
	}
	if m := reRPM.FindStringSubmatch(u); m != nil && d.Class == prices.ClassHDD {
		if m[1] != "" {
			r.RPM, _ = strconv.Atoi(m[1])
		} else if v, err := strconv.ParseFloat(m[2], 64); err == nil {
			r.RPM = int(v * 1000)
		}
	}
	if d.Class == prices.ClassHDD {
		return
	}
	nands := map[string]bool{}
	for _, m := range reNAND.FindAllStringSubmatch(u, -1) {
		switch {
		case m[1] == "EMLC":
			nands["MLC"] = true
		case m[1] == "PSLC":
			nands["SLC"] = true
		case m[1] != "":
			nands[m[1]] = true
		default: // XL-FLASH, Z-NAND: SLC-class low-latency flash
			nands["SLC"] = true
			r.Notes = append(r.Notes, strings.TrimSpace(m[0])+" taken as SLC-class")
		}
	}
	switch len(nands) {
	case 0:
		r.Missing = append(r.Missing, "nand")
	case 1:
		for n := range nands {
			d.NAND = n
		}
	default:
		r.Missing = append(r.Missing, "nand")
		r.Notes = append(r.Notes, "names more than one NAND type")
	}
	if m := reDWPD.FindStringSubmatch(u); m != nil {
		v := m[1]
		if v == "" {
			v = m[2]
		}
		d.DWPD, _ = strconv.ParseFloat(strings.Replace(v, ",", ".", 1), 64)
		r.Endurance = "DWPD stated in the quote"
	} else if m := reTBW.FindStringSubmatch(u); m != nil {
		v, unit := m[1], m[2]
		if v == "" {
			v, unit = m[4], m[3]
		}
		f, _ := strconv.ParseFloat(strings.Replace(v, ",", ".", 1), 64)
		mult := 1e12
		if unit == "PBW" {
			mult = 1e15
		}
		d.TBW = units.Bytes(f * mult)
		r.Endurance = unit + " stated in the quote"
	} else {
		for _, ec := range reEndurClass {
			if ec.re.MatchString(u) {
				d.DWPD = ec.dwpd
				r.Endurance = "\"" + ec.name + "\" in the quote, the vendor endurance class taken as " + strconv.FormatFloat(ec.dwpd, 'f', -1, 64) + " DWPD"
				r.EnduranceClass = true
				break
			}
		}
	}
	if m := reWarranty.FindStringSubmatch(u); m != nil {
		d.Warranty, _ = strconv.ParseFloat(m[1], 64)
	}
}

// recognisePlatform reads what a server line states: sockets, the DDR
// generation and drive bays. Slots, channels and the OS reserve are never
// in a quote line; the import fills them from a template and says so.
func recognisePlatform(u string, configured bool, r *Recognised) {
	r.Kind, r.Configured = KindPlatform, configured
	p := &r.Platform
	if m := reSockets.FindStringSubmatch(u); m != nil {
		switch {
		case m[1] != "":
			p.Sockets, _ = strconv.Atoi(m[1])
		case m[2] != "":
			p.Sockets, _ = strconv.Atoi(m[2])
		case m[3] == "SINGLE":
			p.Sockets = 1
		case m[3] == "DUAL":
			p.Sockets = 2
		case m[3] == "QUAD":
			p.Sockets = 4
		}
	}
	if m := reGen.FindStringSubmatch(u); m != nil {
		p.Memory.Generation = "DDR" + m[1]
	}
	if m := reBays.FindStringSubmatch(u); m != nil {
		p.Bays, _ = strconv.Atoi(m[1])
	}
	if p.Sockets == 0 {
		r.Missing = append(r.Missing, "sockets")
	}
	if p.Memory.Generation == "" {
		r.Missing = append(r.Missing, "generation")
	}
	if p.Bays == 0 {
		r.Missing = append(r.Missing, "drive_bays")
	}
}
