//go:build linux

package host

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/memplan/memplan/units"
)

// ErrParse is wrapped by every error about a kernel file the probe could not
// understand; the message quotes the offending line.
var ErrParse = errors.New("unexpected kernel file format")

func parseErr(file string, line int, text, why string) error {
	return fmt.Errorf("%w: %s line %d %q: %s", ErrParse, file, line, text, why)
}

// SwapArea is one line of /proc/swaps.
type SwapArea struct {
	Filename string
	Type     string // "file" or "partition"
	Size     units.Bytes
	Used     units.Bytes
	Priority int
}

// parseSwaps reads /proc/swaps. Sizes there are in KiB; names escape
// blanks as octal (\040).
func parseSwaps(r io.Reader) ([]SwapArea, error) {
	var out []SwapArea
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		f := strings.Fields(line)
		if n == 1 {
			if len(f) == 0 || f[0] != "Filename" {
				return nil, parseErr("/proc/swaps", n, line, "expected the header line")
			}
			continue
		}
		if len(f) == 0 {
			continue
		}
		if len(f) != 5 {
			return nil, parseErr("/proc/swaps", n, line, "expected 5 fields")
		}
		size, err1 := strconv.ParseInt(f[2], 10, 64)
		used, err2 := strconv.ParseInt(f[3], 10, 64)
		prio, err3 := strconv.Atoi(f[4])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, parseErr("/proc/swaps", n, line, "size, used and priority must be integers")
		}
		out = append(out, SwapArea{Filename: unescapeOctal(f[0]), Type: f[1],
			Size: units.Bytes(size) * units.KiB, Used: units.Bytes(used) * units.KiB, Priority: prio})
	}
	return out, sc.Err()
}

// unescapeOctal undoes the octal escapes (\040 for a space) that
// /proc/swaps and mountinfo use in paths.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseMeminfo reads /proc/meminfo into bytes (page counts such as
// HugePages_Total stay plain numbers).
func parseMeminfo(r io.Reader) (map[string]units.Bytes, error) {
	out := map[string]units.Bytes{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		key, rest, ok := strings.Cut(line, ":")
		if !ok {
			if strings.TrimSpace(line) == "" {
				continue
			}
			return nil, parseErr("/proc/meminfo", n, line, "expected \"Key: value [kB]\"")
		}
		f := strings.Fields(rest)
		if len(f) == 0 || len(f) > 2 {
			return nil, parseErr("/proc/meminfo", n, line, "expected \"Key: value [kB]\"")
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, parseErr("/proc/meminfo", n, line, "value is not an integer")
		}
		if len(f) == 2 {
			if f[1] != "kB" {
				return nil, parseErr("/proc/meminfo", n, line, "unit is not kB")
			}
			v *= 1024
		}
		out[key] = units.Bytes(v)
	}
	return out, sc.Err()
}

// parseKeyValues reads "key value" lines: /proc/vmstat, cgroup memory.stat,
// memory.events.
func parseKeyValues(file string, r io.Reader) (map[string]int64, error) {
	out := map[string]int64{}
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 {
			return nil, parseErr(file, n, line, "expected \"key value\"")
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			// Some values (v1 limits near 2^63) overflow int64: clamp.
			if u, uerr := strconv.ParseUint(f[1], 10, 64); uerr == nil && u > 0 {
				v = int64(^uint64(0) >> 1)
			} else {
				return nil, parseErr(file, n, line, "value is not an integer")
			}
		}
		out[f[0]] = v
	}
	return out, sc.Err()
}

// PSILine is one line of a pressure file.
type PSILine struct {
	Avg10, Avg60, Avg300 float64
	Total                time.Duration
}

// PSI is a pressure stall file (/proc/pressure/memory, memory.pressure).
type PSI struct {
	Some, Full PSILine
}

func parsePSI(file string, r io.Reader) (PSI, error) {
	var p PSI
	sc := bufio.NewScanner(r)
	n := 0
	seen := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		var dst *PSILine
		switch f[0] {
		case "some":
			dst = &p.Some
		case "full":
			dst = &p.Full
		default:
			return PSI{}, parseErr(file, n, line, "expected a \"some\" or \"full\" line")
		}
		if len(f) != 5 {
			return PSI{}, parseErr(file, n, line, "expected avg10=, avg60=, avg300= and total=")
		}
		for _, kv := range f[1:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return PSI{}, parseErr(file, n, line, "expected key=value")
			}
			var err error
			switch k {
			case "avg10":
				dst.Avg10, err = strconv.ParseFloat(v, 64)
			case "avg60":
				dst.Avg60, err = strconv.ParseFloat(v, 64)
			case "avg300":
				dst.Avg300, err = strconv.ParseFloat(v, 64)
			case "total":
				var us int64
				us, err = strconv.ParseInt(v, 10, 64)
				dst.Total = time.Duration(us) * time.Microsecond
			default:
				err = errors.New("unknown key")
			}
			if err != nil {
				return PSI{}, parseErr(file, n, line, "bad "+k)
			}
		}
		seen++
	}
	if err := sc.Err(); err != nil {
		return PSI{}, err
	}
	if seen == 0 {
		return PSI{}, parseErr(file, 0, "", "no some/full lines")
	}
	return p, nil
}

// MMStat is a zram device's mm_stat (Documentation/admin-guide/blockdev/zram.rst).
type MMStat struct {
	OrigData       units.Bytes // uncompressed size of the data stored
	ComprData      units.Bytes // compressed size
	MemUsed        units.Bytes // memory used including allocator overhead
	MemLimit       units.Bytes
	MemUsedMax     units.Bytes
	SamePages      int64 // same-filled pages stored without compression
	PagesCompacted int64
	HugePages      int64 // incompressible pages
}

// Ratio is the data stored per byte of RAM it takes; zero when empty.
func (m MMStat) Ratio() float64 {
	if m.MemUsed <= 0 {
		if m.OrigData > 0 {
			return float64(m.OrigData) / float64(PageSize) // all same-filled
		}
		return 0
	}
	return float64(m.OrigData) / float64(m.MemUsed)
}

func parseMMStat(r io.Reader) (MMStat, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return MMStat{}, err
	}
	line := strings.TrimSpace(string(bytes.SplitN(b, []byte("\n"), 2)[0]))
	f := strings.Fields(line)
	if len(f) < 8 {
		return MMStat{}, parseErr("mm_stat", 1, line, "expected at least 8 numbers")
	}
	v := make([]int64, 8)
	for i := range v {
		if v[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
			return MMStat{}, parseErr("mm_stat", 1, line, fmt.Sprintf("field %d is not an integer", i+1))
		}
	}
	return MMStat{OrigData: units.Bytes(v[0]), ComprData: units.Bytes(v[1]), MemUsed: units.Bytes(v[2]),
		MemLimit: units.Bytes(v[3]), MemUsedMax: units.Bytes(v[4]), SamePages: v[5],
		PagesCompacted: v[6], HugePages: v[7]}, nil
}

// ParseCompAlgorithm reads zram's comp_algorithm ("lzo [lz4] zstd"): the
// selected algorithm and all available ones.
func ParseCompAlgorithm(s string) (selected string, avail []string) {
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			f = strings.Trim(f, "[]")
			selected = f
		}
		avail = append(avail, f)
	}
	return selected, avail
}

// Helpers that read and parse in one step.

func readSwaps(h Host) ([]SwapArea, error) {
	b, err := h.ReadFile("/proc/swaps")
	if err != nil {
		return nil, err
	}
	return parseSwaps(bytes.NewReader(b))
}

func ReadMeminfo(h Host) (map[string]units.Bytes, error) {
	b, err := h.ReadFile("/proc/meminfo")
	if err != nil {
		return nil, err
	}
	return parseMeminfo(bytes.NewReader(b))
}

func readKeyValues(h Host, name string) (map[string]int64, error) {
	b, err := h.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return parseKeyValues(name, bytes.NewReader(b))
}

func readPSI(h Host, name string) (PSI, error) {
	b, err := h.ReadFile(name)
	if err != nil {
		return PSI{}, err
	}
	return parsePSI(name, bytes.NewReader(b))
}

func ReadMMStat(h Host, dev string) (MMStat, error) {
	b, err := h.ReadFile("/sys/block/" + dev + "/mm_stat")
	if err != nil {
		return MMStat{}, err
	}
	return parseMMStat(bytes.NewReader(b))
}
