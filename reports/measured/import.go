package measured

import (
	"fmt"
	"io"

	"github.com/memplan/memplan/prices/quote"
)

// WriteImport says what an import read and recognised, which figures are
// class defaults and which rows it skipped or could not recognise, and why:
// what a person reviews before using the catalog.
func WriteImport(w io.Writer, r *quote.Result) {
	where := r.File
	if r.Sheet != "" {
		where += fmt.Sprintf(", sheet %q", r.Sheet)
	}
	switch {
	case r.HeaderFirst == 0:
		where += ", no header row"
	case r.HeaderFirst == r.HeaderLast:
		where += fmt.Sprintf(", header row %d", r.HeaderFirst)
	default:
		where += fmt.Sprintf(", header rows %d-%d", r.HeaderFirst, r.HeaderLast)
	}
	if r.Encoding != "" {
		where += ", read as " + r.Encoding
	}
	fmt.Fprintf(w, "read %s; columns %s\n", where, r.Columns)
	var dimms, drives, platforms, defaults int
	for _, p := range r.Parts {
		switch p.Kind {
		case quote.KindDIMM:
			dimms++
		case quote.KindDrive:
			drives++
		case quote.KindPlatform:
			platforms++
			continue // its placeholders are listed below
		}
		if len(p.Defaulted) > 0 {
			defaults++
		}
	}
	fmt.Fprintf(w, "recognised %d %s (%d %s, %d %s", len(r.Parts), plural(len(r.Parts), "part", "parts"), dimms, plural(dimms, "DIMM", "DIMMs"), drives, plural(drives, "drive", "drives"))
	if platforms > 0 {
		fmt.Fprintf(w, ", %d %s", platforms, plural(platforms, "platform", "platforms"))
	}
	fmt.Fprint(w, ")")
	if r.Currency != "" && len(r.Parts) > 0 && r.CurrencyFrom != "" {
		fmt.Fprintf(w, " in %s (from %s)", r.Currency, r.CurrencyFrom)
	}
	if !r.Date.IsZero() {
		fmt.Fprintf(w, ", prices of %s (from %s)", r.Date, r.DateFrom)
	}
	fmt.Fprintln(w)
	if defaults > 0 {
		fmt.Fprintf(w, "class-default figures (latency, IOPS or endurance), not from the quote, in %d %s; the catalog's source: fields say which\n", defaults, plural(defaults, "drive", "drives"))
	}
	if len(r.FillByHand) > 0 {
		fmt.Fprintf(w, "fill in by hand from the server's specification (the catalog holds placeholders copied from an embedded platform; its source: says which):\n")
		for _, n := range r.FillByHand {
			fmt.Fprintf(w, "  row %d: %q: %s\n", n.Row, n.Text, n.Reason)
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(w, "check (%d %s):\n", len(r.Warnings), rowsWord(len(r.Warnings)))
		for _, n := range r.Warnings {
			fmt.Fprintf(w, "  row %d: %q: %s\n", n.Row, n.Text, n.Reason)
		}
	}
	if len(r.Unclassified) > 0 {
		fmt.Fprintf(w, "not recognised (%d %s):\n", len(r.Unclassified), rowsWord(len(r.Unclassified)))
		for _, n := range r.Unclassified {
			fmt.Fprintf(w, "  row %d: %q: %s\n", n.Row, n.Text, n.Reason)
		}
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintf(w, "skipped (%d %s):\n", len(r.Skipped), rowsWord(len(r.Skipped)))
		for _, n := range r.Skipped {
			fmt.Fprintf(w, "  row %d: %q: %s\n", n.Row, n.Text, n.Reason)
		}
	}
	if r.Blank > 0 {
		fmt.Fprintf(w, "%d blank %s ignored\n", r.Blank, rowsWord(r.Blank))
	}
}

func rowsWord(n int) string { return plural(n, "row", "rows") }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
