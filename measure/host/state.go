//go:build linux

package host

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// State renders everything the probe may change on the host — swap
// areas, zram devices and their settings, the cgroups next to the probe's,
// swappiness and zswap's parameters — as text, so that the state before
// and after a probe can be compared byte for byte.
func State(h Host) string {
	var b strings.Builder
	section := func(name string) { fmt.Fprintf(&b, "== %s\n", name) }
	file := func(name string) {
		v, err := h.ReadFile(name)
		if err != nil {
			fmt.Fprintf(&b, "%s: %v\n", name, err)
			return
		}
		fmt.Fprintf(&b, "%s: %s\n", name, strings.TrimRight(string(v), "\n"))
	}
	section("swaps")
	if v, err := h.ReadFile("/proc/swaps"); err == nil {
		b.Write(v)
	}
	section("zram")
	for _, id := range ZramDevices(h) {
		for _, attr := range []string{"disksize", "comp_algorithm", "initstate"} {
			if Exists(h, ZramSys(id)+"/"+attr) {
				file(ZramSys(id) + "/" + attr)
			}
		}
	}
	section("loop")
	loops := boundLoops(h)
	for _, name := range slices.Sorted(maps.Keys(loops)) {
		fmt.Fprintf(&b, "%s: %s\n", name, loops[name])
	}
	section("cgroups")
	if l, err := DetectCgroups(h); err == nil {
		dirs := map[string]bool{}
		for _, d := range []string{l.MemParent, l.BlkParent} {
			if d != "" {
				dirs[d] = true
			}
		}
		var list []string
		for d := range dirs {
			list = append(list, d)
		}
		sort.Strings(list)
		for _, d := range list {
			ents, _ := h.ReadDir(d)
			var sub []string
			for _, e := range ents {
				if e.IsDir() {
					sub = append(sub, e.Name())
				}
			}
			fmt.Fprintf(&b, "%s: %s\n", d, strings.Join(sub, " "))
		}
	}
	section("sysctl")
	file("/proc/sys/vm/swappiness")
	file(DelayacctSysctl)
	section("zswap")
	if ents, err := h.ReadDir(ZswapParams); err == nil {
		for _, e := range ents {
			file(ZswapParams + "/" + e.Name())
		}
	}
	return b.String()
}

const ZswapParams = "/sys/module/zswap/parameters"
