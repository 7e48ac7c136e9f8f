//go:build linux

package onepass

import (
	"bufio"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
)

// Methods a sampler may use; Samples.Method says which one was.
const (
	MethodAccessedBits = "accessed-bits" // clear_refs + smaps Referenced
	MethodDAMONVaddr   = "damon-vaddr"   // virtual-address DAMON (not implemented)
)

// DAMON is what the kernel offers of DAMON, found without changing the
// host: no kdamond is created to ask.
type DAMON struct {
	// Sysfs: /sys/kernel/mm/damon/admin exists.
	Sysfs bool `json:"sysfs"`
	// Vaddr: virtual-address monitoring is available ("yes", "no" or
	// "unknown" when nothing says).
	Vaddr string `json:"vaddr"`
	// Ops are the operation sets a kdamond context lists in
	// avail_operations, when one already exists.
	Ops []string `json:"ops,omitempty"`
	// Evidence says where the answer came from.
	Evidence string `json:"evidence"`
}

// DetectDAMON looks at the kernel's DAMON without creating a kdamond: an
// existing context's avail_operations when there is one, else the
// kernel's config (/proc/config.gz, /boot/config-RELEASE).
func DetectDAMON() DAMON { return detectDAMON("/sys", "/proc/config.gz", "/boot") }

func detectDAMON(sys, configGz, boot string) DAMON {
	d := DAMON{Vaddr: "unknown"}
	admin := filepath.Join(sys, "kernel/mm/damon/admin")
	if _, err := os.Stat(admin); err == nil {
		d.Sysfs = true
		ops, _ := filepath.Glob(filepath.Join(admin, "kdamonds/*/contexts/*/avail_operations"))
		for _, p := range ops {
			data, err := os.ReadFile(p)
			if err != nil {
				continue
			}
			d.Ops = strings.Fields(string(data))
			d.Vaddr = "no"
			for _, o := range d.Ops {
				if o == "vaddr" {
					d.Vaddr = "yes"
				}
			}
			d.Evidence = p
			return d
		}
	}
	if v, src := kernelConfig(configGz, boot, "CONFIG_DAMON_VADDR"); src != "" {
		d.Vaddr = map[bool]string{true: "yes", false: "no"}[v == "y"]
		d.Evidence = src
		return d
	}
	if !d.Sysfs {
		d.Vaddr, d.Evidence = "no", admin+" does not exist"
	}
	return d
}

// kernelConfig is the value of key in the running kernel's config ("" when
// unset) and the file that said so ("" when none was readable).
func kernelConfig(configGz, boot, key string) (value, source string) {
	var sc *bufio.Scanner
	if f, err := os.Open(configGz); err == nil {
		defer f.Close()
		if z, err := gzip.NewReader(f); err == nil {
			sc, source = bufio.NewScanner(z), configGz
		}
	}
	if sc == nil {
		p := filepath.Join(boot, "config-"+release())
		f, err := os.Open(p)
		if err != nil {
			return "", ""
		}
		defer f.Close()
		sc, source = bufio.NewScanner(f), p
	}
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, key+"="); ok {
			return v, source
		}
	}
	return "", source
}

func release() string {
	data, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}
