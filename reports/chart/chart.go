// Package chart draws a saved result in the terminal, for a person who
// would rather look than read: fleet cost against how much of its deadline
// the critical job class uses (the cheapest point left of the deadline line
// is the recommendation), and slowdown against fit ratio (the configurations
// on the factor curves they were read from).
package chart

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/memplan/memplan/reports"
)

// Size of the plotting area in characters.
const (
	Width  = 56
	Height = 14
)

// CostRuntime draws fleet cost (vertical) against the critical job class's
// runtime as a share of its deadline (horizontal) for every configuration
// the result lists. The deadline (1.0) is a column of ':'. Marks:
// * recommended, B baseline, o meets every deadline, x misses one; where
// two fall on one cell the first of those wins.
func CostRuntime(w io.Writer, r reports.Output) error {
	type point struct {
		x, y float64
		mark byte
	}
	var pts []point
	for _, c := range r.Configurations {
		if c.DeadlineHours <= 0 {
			continue
		}
		m := mark(r, c)
		pts = append(pts, point{c.RuntimeHours / c.DeadlineHours, c.FleetCost.Float(), m})
	}
	if len(pts) == 0 {
		_, err := fmt.Fprintln(w, "No configuration to draw: the result lists none.")
		return err
	}
	x0, x1, y0, y1 := 1.0, 1.0, math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		x0, x1 = math.Min(x0, p.x), math.Max(x1, p.x)
		y0, y1 = math.Min(y0, p.y), math.Max(y1, p.y)
	}
	// A little room on either side, and never a zero span.
	pad := math.Max((x1-x0)*0.05, 0.02)
	x0, x1 = math.Max(0, x0-pad), x1+pad
	if y1 == y0 {
		y0, y1 = y0*0.95, y1*1.05+1
	}
	col := func(x float64) int { return int(math.Round((x - x0) / (x1 - x0) * float64(Width-1))) }
	row := func(y float64) int { return Height - 1 - int(math.Round((y-y0)/(y1-y0)*float64(Height-1))) }
	grid := make([][]byte, Height)
	for i := range grid {
		grid[i] = []byte(strings.Repeat(" ", Width))
		grid[i][col(1)] = ':'
	}
	rank := map[byte]int{'*': 4, 'B': 3, 'o': 2, 'x': 1, ':': 0, ' ': 0}
	for _, p := range pts {
		c, rr := col(p.x), row(p.y)
		if rank[p.mark] > rank[grid[rr][c]] {
			grid[rr][c] = p.mark
		}
	}
	cur := r.Currency
	labels := map[int]string{0: money(y1), Height / 2: money((y0 + y1) / 2), Height - 1: money(y0)}
	lw := 0
	for _, l := range labels {
		lw = max(lw, len(l))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Fleet cost (%s) against the critical job's runtime as a share of its deadline:\n", cur)
	for i, line := range grid {
		fmt.Fprintf(&b, "%*s |%s\n", lw, labels[i], strings.TrimRight(string(line), " "))
	}
	fmt.Fprintf(&b, "%*s +%s\n", lw, "", strings.Repeat("-", Width))
	// x ticks: the ends, and the deadline where it does not run into them.
	left, right := ratio(x0), ratio(x1)
	ticks := []byte(strings.Repeat(" ", Width))
	copy(ticks, left)
	copy(ticks[Width-len(right):], right)
	if c := col(1) - 1; c > len(left) && c+3 < Width-len(right) {
		copy(ticks[c:], "1.0")
	}
	fmt.Fprintf(&b, "%*s  %s\n", lw, "", strings.TrimRight(string(ticks), " "))
	fmt.Fprintf(&b, "%*s  ':' the deadline (1.0); * recommended, B cheapest all-DRAM, o meets every\n", lw, "")
	fmt.Fprintf(&b, "%*s  deadline, x misses one; %d of %d configurations drawn\n", lw, "", len(pts), r.ConfigurationsTotal)
	_, err := io.WriteString(w, b.String())
	return err
}

func ratio(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', 2, 64) }

func money(v float64) string {
	s := strconv.FormatFloat(math.Round(v), 'f', 0, 64)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && r != '-' && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// SlowdownFit draws the critical job class's slowdown (vertical, from 1)
// against its fit ratio, the share of what it touches that fits in RAM
// (horizontal, 0 to 1), for every configuration the result lists, over
// the points of the factor curves the result used ('.'). Marks as in
// CostRuntime.
func SlowdownFit(w io.Writer, r reports.Output) error {
	type point struct {
		x, y float64
		mark byte
	}
	var pts []point
	for _, f := range r.Factors {
		for _, c := range f.Curves {
			for _, p := range c.Points {
				pts = append(pts, point{p.Fit, p.Slowdown, '.'})
			}
		}
	}
	drawn := 0
	for _, c := range r.Configurations {
		if c.Slowdown <= 0 {
			continue
		}
		m := mark(r, c)
		pts = append(pts, point{c.FitRatio, c.Slowdown, m})
		drawn++
	}
	if drawn == 0 {
		_, err := fmt.Fprintln(w, "No configuration to draw: the result lists none.")
		return err
	}
	y0, y1 := 1.0, 1.0
	for _, p := range pts {
		y1 = math.Max(y1, p.y)
	}
	if y1 == y0 {
		y1 = y0 + 0.1
	}
	col := func(x float64) int { return int(math.Round(math.Min(math.Max(x, 0), 1) * float64(Width-1))) }
	row := func(y float64) int {
		return Height - 1 - int(math.Round((math.Max(y, y0)-y0)/(y1-y0)*float64(Height-1)))
	}
	grid := make([][]byte, Height)
	for i := range grid {
		grid[i] = []byte(strings.Repeat(" ", Width))
	}
	rank := map[byte]int{'*': 5, 'B': 4, 'o': 3, 'x': 2, '.': 1, ' ': 0}
	for _, p := range pts {
		c, rr := col(p.x), row(p.y)
		if rank[p.mark] > rank[grid[rr][c]] {
			grid[rr][c] = p.mark
		}
	}
	slow := func(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', 2, 64) + "x" }
	labels := map[int]string{0: slow(y1), Height / 2: slow((y0 + y1) / 2), Height - 1: slow(y0)}
	lw := 0
	for _, l := range labels {
		lw = max(lw, len(l))
	}
	var b strings.Builder
	b.WriteString("Slowdown of the critical job against its fit ratio (share of what it touches in RAM):\n")
	for i, line := range grid {
		fmt.Fprintf(&b, "%*s |%s\n", lw, labels[i], strings.TrimRight(string(line), " "))
	}
	fmt.Fprintf(&b, "%*s +%s\n", lw, "", strings.Repeat("-", Width))
	ticks := []byte(strings.Repeat(" ", Width))
	copy(ticks, "0")
	copy(ticks[col(0.5):], "0.5")
	copy(ticks[Width-1:], "1")
	fmt.Fprintf(&b, "%*s  %s\n", lw, "", string(ticks))
	fmt.Fprintf(&b, "%*s  . a factor curve's point; * recommended, B cheapest all-DRAM, o meets every\n", lw, "")
	fmt.Fprintf(&b, "%*s  deadline, x misses one; %d of %d configurations drawn\n", lw, "", drawn, r.ConfigurationsTotal)
	_, err := io.WriteString(w, b.String())
	return err
}

// mark is a configuration's symbol on a chart: * recommended, B the
// all-DRAM baseline, x misses a deadline, o any other.
func mark(r reports.Output, c reports.Configuration) byte {
	switch {
	case c.ID == r.RecommendedID && r.RecommendedID != "":
		return '*'
	case c.ID == r.BaselineID && r.BaselineID != "":
		return 'B'
	case !c.MeetsDeadlines:
		return 'x'
	}
	return 'o'
}
