//go:build linux && reread

package profile

// TestReread re-estimates stored one runs with other readings of the
// progress clock, for bench/onerun/reread.py: it is no test of memplan
// and builds only with -tags reread.
//
//	REREAD_LEAKS=0,0.35 go test -tags reread -run TestReread ./measure/profile -args FILE.json...
//
// For each file (a --one-run profile's --out) and each leak it prints one
// line: the file, the leak ("m" for the run's measured one), and the
// central slowdown per fit of the file's first phase (0 where not
// measured).

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestReread(t *testing.T) {
	leaks := strings.Split(os.Getenv("REREAD_LEAKS"), ",")
	for _, f := range flag.Args() {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Extra struct {
				OneRun OneRunReport `json:"one_run"`
				Phases []struct {
					Points []struct {
						Fit float64 `json:"fit"`
					} `json:"points"`
				} `json:"phases"`
			} `json:"extra"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		r := doc.Extra.OneRun
		var fits []float64
		for _, p := range doc.Extra.Phases[0].Points {
			fits = append(fits, p.Fit)
		}
		for _, l := range leaks {
			c := clock{}
			switch {
			case l == "m":
				if r.Leak != nil {
					c.Leak = r.Leak.Share
				}
			case l != "":
				v, err := strconv.ParseFloat(l, 64)
				if err != nil {
					t.Fatal(err)
				}
				c.Leak = v
			}
			e := estimateOneRun(r.Slices, fits, r.Footprint, r.Budget, r.KneeFit, []clock{c}, nil)
			var out []string
			for _, p := range e.points {
				out = append(out, fmt.Sprintf("%.4f", p.Slowdown.Mean))
			}
			fmt.Printf("%s %s %.4f %s\n", f, l, c.Leak, strings.Join(out, " "))
		}
	}
}
