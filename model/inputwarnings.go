package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/memplan/memplan/money"
	"github.com/memplan/memplan/units"
)

// dimmSizes are the module capacities DRAM vendors make (GiB): powers of
// two and the non-binary DDR5 sizes (24, 48, 96 and their doubles).
var dimmSizes = []int64{1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}

// inputWarnings flags inputs that load but are probably wrong: a quote
// dated after today and a DIMM of a capacity nobody makes (most often a
// decimal "64GB" for a 64 GiB module, or a typo). They do not stop the
// run; a person should look.
func inputWarnings(in Input) []string {
	var out []string
	for _, c := range in.Prices.Catalogs {
		if !in.Now.IsZero() && !c.Date.IsZero() && c.Date.Time.After(in.Now) {
			out = append(out, fmt.Sprintf("catalog %s (%s) is dated %s, after today: check its date (a quote cannot come from the future, and the price-age check relies on it)", c.Name, c.File, c.Date))
		}
		for i, d := range c.DIMMs {
			if plausibleDIMM(d.Capacity) {
				continue
			}
			hint := "check the capacity"
			// 64GB read as decimal is 59.6GiB: the usual slip in a quote.
			if dec := float64(d.Capacity) / 1e9; plausibleDIMM(units.Bytes(dec * float64(units.GiB))) {
				hint = fmt.Sprintf("it looks written in decimal GB; DIMMs are sold in binary sizes: write %.0fGiB", dec)
			}
			out = append(out, fmt.Sprintf("catalog %s (%s) dimms[%d]: %s has a capacity of %s, which no DRAM vendor makes (modules come in %s GiB); %s",
				c.Name, c.File, i, d.SKU, d.Capacity, sizesList(), hint))
		}
	}
	return append(out, speedWarnings(in)...)
}

// speedWarnings: a job class that states its sensitivity to memory speed
// gains nothing on a configuration whose memory speed is unknown (a DIMM
// without speed on a platform without dimm_speed); say so rather than
// run it at the measured speed without a word.
func speedWarnings(in Input) []string {
	var jobs []string
	for _, j := range in.Workload.Jobs {
		if j.MemorySpeed != nil && j.MemorySpeed.Sensitivity > 0 {
			jobs = append(jobs, j.Name)
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	var none []string
	for _, d := range in.Prices.DIMMs {
		if d.Speed > 0 {
			continue
		}
		for _, p := range in.Prices.Platforms {
			if ok, _ := p.Accepts(d); ok && len(p.Memory.DIMMSpeed) == 0 {
				none = append(none, d.SKU)
				break
			}
		}
	}
	if len(none) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("job class %s states its sensitivity to memory speed, but DIMM %s has no speed and no platform that takes it gives dimm_speed: configurations with it run at the measured speed; add `speed:` to the DIMM",
		strings.Join(jobs, ", "), strings.Join(none, ", "))}
}

func plausibleDIMM(b units.Bytes) bool {
	for _, s := range dimmSizes {
		if b == units.Bytes(s)*units.GiB {
			return true
		}
	}
	return false
}

func sizesList() string {
	s := make([]string, len(dimmSizes))
	for i, v := range dimmSizes {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

// checkMoneyRange refuses a result whose fleet costs pass MaxFleetCost or
// overflowed int64 cents on the way (money.Invalid); the inputs are
// bounded, but a dear enough part times a large enough fleet (or an
// exchange rate) can still get there.
func checkMoneyRange(res *Result, w *Workload) error {
	limit := money.Units(MaxFleetCost)
	for i := range res.Configs {
		c := &res.Configs[i]
		// Invalid (an overflow of int64 cents on the way) compares above
		// every amount, so it is caught here too.
		if limit.Less(c.Cost.Fleet) || limit.Less(c.Cost.TCOFleet) {
			field := "jobs"
			if w.Demand.Servers > 0 {
				field = "demand.servers"
			}
			cost := c.Cost.Fleet
			if cost.Less(c.Cost.TCOFleet) {
				cost = c.Cost.TCOFleet
			}
			costText := moneyOf(cost, res.Currency)
			if !cost.Valid() {
				// Past int64 cents: say so rather than print a wrapped number.
				costText = "more than " + groupDigits(strconv.FormatInt(math.MaxInt64/100, 10)) + " " + res.Currency
			}
			return w.ErrorAt(field, "check jobs_per_day, demand.servers and the catalog prices for extra digits",
				"a fleet of %s servers of %s would cost %s, more than memplan counts to the cent (%s)",
				strings.TrimSpace(Money(float64(c.Servers), "")), c.Label, costText, moneyOf(limit, res.Currency))
		}
	}
	return nil
}

// groupDigits puts thousands separators into a string of digits, for a
// figure a float64 would not print exactly.
func groupDigits(d string) string {
	var b strings.Builder
	for i, r := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// footprintWarnings: the model carries a curve's page rate per second of
// in-RAM runtime to a job of any size at the same fit ratio. That holds
// for a job that is a larger instance of the same work, running longer in
// proportion; a job that touches more memory in the same time pages more.
// A job class more than footprintSpan times larger or smaller than the
// jobs its curves were measured on is told so, with what settles it.
func footprintWarnings(in Input) []string {
	var out []string
	for _, j := range in.Workload.Jobs {
		fs := in.Factors
		if jf := in.JobFactors[j.Name]; jf != nil {
			fs = jf
		}
		if fs == nil || j.Footprint <= 0 {
			continue
		}
		c := fs.Curves[fs.TransferFrom]
		if c == nil || c.Reference.Footprint <= 0 {
			continue
		}
		ratio := float64(j.Footprint) / float64(c.Reference.Footprint)
		if ratio <= footprintSpan && ratio >= 1.0/footprintSpan {
			continue
		}
		size, holds := "larger", "more data for longer"
		if ratio < 1 {
			size, holds, ratio = "smaller", "less data in less time", 1/ratio
		}
		// Below 10 a whole number can read as within the span (4.4
		// times as "4 times").
		times := fmt.Sprintf("%.0f", ratio)
		if ratio < 10 {
			times = fmt.Sprintf("%.1f", ratio)
		}
		out = append(out, fmt.Sprintf("job class %s (%s a job) is %s times %s than the jobs its slowdown curves come from (%s a job, the %s curve and those derived from it; they are carried to it at the same page rate per second of work, true if it does the same work on %s): `memplan profile` of the job settles it",
			j.Name, j.Footprint, times, size, c.Reference.Footprint, c.Class, holds))
	}
	return out
}

// footprintSpan is how many times larger or smaller than a curve's jobs a
// job class may be before recommend says that it rests on the page rate
// of jobs of another size.
const footprintSpan = 4
