package reports

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/memplan/memplan/model"
)

// RenderCrossval writes the leave-one-out table of `memplan factors
// crossval` as a table or JSON.
func RenderCrossval(w io.Writer, format string, cv model.Crossval) error {
	switch format {
	case "", "table":
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(cv)
	default:
		return fmt.Errorf("unknown format %q: expected table or json", format)
	}
	if len(cv.Joint) > 0 {
		lo, hi := math.Inf(1), math.Inf(-1)
		pdown, pup := math.Inf(1), 0.0
		for _, r := range cv.Joint {
			lo, hi = math.Min(lo, r.ErrExcess), math.Max(hi, r.ErrExcess)
			if r.PassUp > 0 {
				pdown, pup = math.Min(pdown, r.PassDown), math.Max(pup, r.PassUp)
			}
		}
		msg := fmt.Sprintf("Headline: predicted jointly from the other curves (what recommend derives a device without a curve from), the central figures miss the held-out points by %+.0f%% to %+.0f%% in excess slowdown, a root mean square of %.2f in log excess (a factor of %.2f); `recommend --uncertainty` draws derived figures at least this wide. %d of %d points fall inside their bands, but the checks would pass for a held-out excess from as little as x%.2f to as much as x%.2f of the real one, so passing says little.",
			100*lo, 100*hi, cv.JointErrorRMS, math.Exp(cv.JointErrorRMS), cv.JointInside, len(cv.Joint), pdown, pup)
		paragraph(w, msg)
	}
	paragraph(w, "Leave-one-out: each published or measured point predicted from each other curve, carried to the held-out curve's own device and load by the swap-path model; the band carries the transfer error learnt without the held-out curve.")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "class\tfit\tactual\tfrom\tpredicted\t95% band\twidth\terror\terror in excess\tinside")
	for _, r := range cv.Rows {
		from := r.From
		if r.FromInferred {
			from += " (inferred)"
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.3f\t%s\t%.3f\t%.3f-%.3f\t%s\t%+.1f%%\t%+.0f%%\t%s\n", r.Class, r.Fit, r.Actual, from, r.Predicted, r.Low, r.High,
			factorWidth(r.Low, r.High), r.ErrSlowdown*100, r.ErrExcess*100, yesNo(r.Inside))
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%d of %d points inside the band predicted without their own curve.\n", cv.Inside, len(cv.Rows))
	if len(cv.Joint) > 0 {
		fmt.Fprintln(w)
		paragraph(w, "Jointly: each point predicted from all the other curves at once, as recommend derives a device without a curve of its own: the band is the one recommend prints for the held-out curve's device, load and dirty share. The unknowns (shape and its locality, software overhead, where in their stated ranges the references' dirty share and write bandwidth and the sources' fit ratios were) are limited to the combinations under which the other curves agree with each other within their uncertainties; the band is the spread of the prediction over those, widened by the source points' own uncertainty. With one other curve nothing checks it (allowed: one curve): the row is that curve's band with the transfer error, as in the table above.")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "class\tfit\tactual\tpredicted\t95% band\twidth\terror in excess\tpasses for excess\tallowed\tinside")
		for _, r := range cv.Joint {
			allowed := fmt.Sprintf("%d of %d", r.Consistent, r.Scenarios)
			if r.Scenarios == 0 {
				allowed = "one curve"
			}
			fmt.Fprintf(tw, "%s\t%.2f\t%.3f\t%.3f\t%.3f-%.3f\t%s\t%+.0f%%\tx%.2f-x%.2f\t%s\t%s\n", r.Class, r.Fit, r.Actual, r.Predicted, r.Low, r.High,
				factorWidth(r.Low, r.High), r.ErrExcess*100, r.PassDown, r.PassUp, allowed, yesNo(r.Inside))
		}
		tw.Flush()
		fmt.Fprintln(w)
		fmt.Fprintf(w, "%d of %d points inside the band predicted jointly from the other curves.\n", cv.JointInside, len(cv.Joint))
	}
	if len(cv.Inferred) > 0 {
		msg := fmt.Sprintf("Inferred (memplan profile --one-pass): %s. An inferred curve is predicted from, never held out, and does not teach the transfer error: its points are the model's own arithmetic on sampled working sets, not observations.", strings.Join(cv.Inferred, ", "))
		for _, l := range Wrap(msg, 80, "") {
			fmt.Fprintln(w, l)
		}
	}
	msg := fmt.Sprintf("Transfer error learnt from all %s (what recommend gives a carried figure, or one derived from a single curve, on top of the shape, overhead, fit-ratio and reference-range unknowns): ln e = %.2f + %.2f x |ln(target/reference time per page)|, a factor of %.2f between devices alike and %.2f between devices e-fold apart.",
		plural(len(classesOf(cv)), "curve", "curves"), cv.TransferFloor, cv.TransferSlope, math.Exp(cv.TransferFloor), math.Exp(cv.TransferFloor+cv.TransferSlope))
	if n := len(classesOf(cv)); n < 2 {
		msg = fmt.Sprintf("Transfer error: %s observed, too few to learn it from, so recommend gives a carried figure, or one derived from a single curve, the model's prior, a factor of %.2f (ln e = %.2f), on top of the shape, overhead, fit-ratio and reference-range unknowns.",
			plural(n, "curve", "curves"), math.Exp(cv.TransferFloor), cv.TransferFloor)
	}
	for _, l := range Wrap(msg, 80, "") {
		fmt.Fprintln(w, l)
	}
	return nil
}

// paragraph writes text wrapped to 80 columns and a blank line.
func paragraph(w io.Writer, text string) {
	for _, l := range Wrap(text, 80, "") {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// factorWidth is how many times the band's top excess is its bottom's.
func factorWidth(low, high float64) string {
	if low <= 1 {
		return "-"
	}
	return fmt.Sprintf("x%.1f", (high-1)/(low-1))
}

func classesOf(cv model.Crossval) []string {
	seen := map[string]bool{}
	for _, c := range cv.Inferred {
		seen[c] = true // they teach the transfer error nothing
	}
	var out []string
	for _, r := range cv.Rows {
		for _, c := range []string{r.Class, r.From} {
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}
