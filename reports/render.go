package reports

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/memplan/memplan/model"
	"gopkg.in/yaml.v3"
)

var formats = []string{"table", "json", "yaml", "csv", "markdown"}

// Formats lists the output formats Render accepts; the first is the default.
func Formats() []string { return append([]string(nil), formats...) }

// Render writes res in the given format ("" means table).
func Render(w io.Writer, format string, res *model.Result, opts Options) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	if res == nil {
		return errors.New("reports: no result to render")
	}
	return RenderOutputOptions(w, format, NewOutput(res, opts), opts)
}

// RenderOutput writes an already converted result, such as one read back
// with ReadOutput, in the given format ("" means table).
func RenderOutput(w io.Writer, format string, out Output) error {
	return RenderOutputWidth(w, format, out, 0, false)
}

// RenderOutputWidth is RenderOutput with a table that fits width columns
// (0: 80) or, with wide, has full labels and no width limit.
func RenderOutputWidth(w io.Writer, format string, out Output, width int, wide bool) error {
	return RenderOutputOptions(w, format, out, Options{Width: width, Wide: wide})
}

// RenderOutputOptions is RenderOutput with the presentation options of
// opts (Width, Wide, Explain, ShowBreakEven); the others are ignored, out
// being converted already.
func RenderOutputOptions(w io.Writer, format string, out Output, opts Options) error {
	l := layout{width: opts.Width, wide: opts.Wide, explain: opts.Explain, breakEven: opts.ShowBreakEven}
	if err := checkFormat(format); err != nil {
		return err
	}
	// Render into memory first so that a failure leaves no half-written
	// report behind in w.
	var buf bytes.Buffer
	var err error
	switch format {
	case "", "table":
		err = renderTable(&buf, out, l)
	case "json":
		err = encodeJSON(&buf, out, "", "  ")
	case "yaml":
		err = renderYAML(&buf, out)
	case "csv":
		err = renderCSV(&buf, out)
	case "markdown":
		err = renderMarkdown(&buf, out, l)
	}
	if err != nil {
		return fmt.Errorf("rendering %s: %w", format, err)
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// renderYAML encodes the same struct as JSON, so names and order match. yaml.v3
// writes floats in exponent form from a million up ("1.2345e+06"), which
// nobody wants to read as a fleet cost; they are rewritten in plain decimal.
func renderYAML(w io.Writer, out Output) error {
	var n yaml.Node
	if err := n.Encode(out); err != nil {
		return err
	}
	plainFloats(&n)
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(&n); err != nil {
		return err
	}
	return enc.Close()
}

func plainFloats(n *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!float" {
		if v, err := strconv.ParseFloat(n.Value, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			// An untagged plain number resolves to int or float as written;
			// either decodes into the float64 fields.
			n.Value, n.Tag = strconv.FormatFloat(v, 'f', -1, 64), ""
		}
	}
	for _, c := range n.Content {
		plainFloats(c)
	}
}

func checkFormat(format string) error {
	if format == "" {
		return nil
	}
	for _, f := range formats {
		if f == format {
			return nil
		}
	}
	return fmt.Errorf("unknown output format %q; valid formats are %s", format, strings.Join(formats, ", "))
}
