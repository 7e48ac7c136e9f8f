package quote

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
	"gopkg.in/yaml.v3"
)

// render writes the catalog as YAML for a person to review: a comment
// above each entry names its source row, fields not taken from the quote
// say so, and the rows that were not imported are listed at the end.
func render(res *Result, c *prices.Catalog) ([]byte, error) {
	root := &yaml.Node{Kind: yaml.MappingNode}
	add := func(m *yaml.Node, key string, v *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	}
	add(root, "name", str(c.Name))
	add(root, "currency", str(c.Currency))
	add(root, "date", str(c.Date.String()))
	add(root, "source", str(c.Source))
	notes := fmt.Sprintf("imported by memplan prices import from %s", describeInput(res))
	add(root, "notes", str(notes))
	parts := map[string]Part{}
	for _, p := range res.Parts {
		parts[p.SKU] = p
	}
	if len(c.DIMMs) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, d := range c.DIMMs {
			m := &yaml.Node{Kind: yaml.MappingNode, HeadComment: entryComment(parts[d.SKU])}
			add(m, "sku", str(d.SKU))
			add(m, "model", str(d.Model))
			add(m, "generation", str(d.Generation))
			add(m, "type", str(d.Type))
			add(m, "capacity", str(d.Capacity.String()))
			add(m, "speed", num(float64(d.Speed)))
			add(m, "price", str(money(d.Price)))
			seq.Content = append(seq.Content, m)
		}
		add(root, "dimms", seq)
	}
	if len(c.Drives) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, d := range c.Drives {
			m := &yaml.Node{Kind: yaml.MappingNode, HeadComment: entryComment(parts[d.SKU])}
			add(m, "sku", str(d.SKU))
			add(m, "model", str(d.Model))
			add(m, "class", str(d.Class))
			if d.NAND != "" {
				add(m, "nand", str(d.NAND))
			}
			add(m, "capacity", str(driveBytes(d.Capacity)))
			add(m, "price", str(money(d.Price)))
			add(m, "read_latency", str(d.ReadLatency.String()))
			add(m, "write_latency", str(d.WriteLatency.String()))
			add(m, "read_iops", num(d.ReadIOPS))
			add(m, "write_iops", num(d.WriteIOPS))
			if d.TBW > 0 {
				add(m, "tbw", str(driveBytes(d.TBW)))
			}
			if d.DWPD > 0 && d.TBW == 0 { // a catalog takes one endurance rating
				add(m, "dwpd", num(d.DWPD))
			}
			if d.Warranty > 0 {
				add(m, "warranty_years", num(d.Warranty))
			}
			add(m, "source", str(d.Source))
			seq.Content = append(seq.Content, m)
		}
		add(root, "drives", seq)
	}
	if len(c.Platforms) > 0 {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, pl := range c.Platforms {
			m := &yaml.Node{Kind: yaml.MappingNode, HeadComment: entryComment(parts[pl.SKU])}
			add(m, "sku", str(pl.SKU))
			add(m, "model", str(pl.Model))
			add(m, "price", str(money(pl.Price)))
			add(m, "sockets", num(float64(pl.Sockets)))
			mem := &yaml.Node{Kind: yaml.MappingNode}
			add(mem, "generation", str(pl.Memory.Generation))
			types := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
			for _, t := range pl.Memory.Types {
				types.Content = append(types.Content, str(t))
			}
			add(mem, "types", types)
			add(mem, "slots", num(float64(pl.Memory.Slots)))
			add(mem, "channels", num(float64(pl.Memory.Channels)))
			add(m, "memory", mem)
			add(m, "drive_bays", num(float64(pl.Bays)))
			if len(pl.Classes) > 0 {
				add(m, "drive_classes", flowStrings(pl.Classes))
			}
			add(m, "os_reserve", str(pl.Reserve.String()))
			if len(pl.Software) > 0 {
				add(m, "software_swap", flowStrings(pl.Software))
			}
			add(m, "source", str(pl.Source))
			seq.Content = append(seq.Content, m)
		}
		add(root, "platforms", seq)
	}
	var body bytes.Buffer
	enc := yaml.NewEncoder(&body)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "# Imported by `memplan prices import` from %s.\n", describeInput(res))
	fmt.Fprintf(&out, "# Columns: %s. Currency from %s, date from %s.\n", res.Columns, res.CurrencyFrom, res.DateFrom)
	out.WriteString("# Review every entry before use: the comment above each names its row in the\n")
	out.WriteString("# quote, and `source:` says which figures are class defaults, not from the quote.\n")
	if len(res.FillByHand) > 0 {
		out.WriteString("# Platforms: a quote line never states a server's memory layout; the fields\n")
		out.WriteString("# named above each platform are placeholders to fill in by hand from the\n")
		out.WriteString("# server's specification before the plan is trusted.\n")
	}
	out.WriteString("# Recognition rules: docs/import.md.\n")
	out.Write(body.Bytes())
	if len(res.Skipped)+len(res.Unclassified) > 0 {
		out.WriteString("\n# Rows not imported:\n")
		for _, n := range res.Unclassified {
			fmt.Fprintf(&out, "#   row %d: %s: not recognised: %s\n", n.Row, quoteText(n.Text), n.Reason)
		}
		for _, n := range res.Skipped {
			fmt.Fprintf(&out, "#   row %d: %s: skipped: %s\n", n.Row, quoteText(n.Text), n.Reason)
		}
	}
	return out.Bytes(), nil
}

func describeInput(res *Result) string {
	s := res.File
	if res.Sheet != "" {
		s += fmt.Sprintf(", sheet %q", res.Sheet)
	}
	if res.Encoding != "" {
		s += ", read as " + res.Encoding
	}
	if res.HeaderFirst > 0 {
		if res.HeaderFirst == res.HeaderLast {
			s += fmt.Sprintf(", header row %d", res.HeaderFirst)
		} else {
			s += fmt.Sprintf(", header rows %d-%d", res.HeaderFirst, res.HeaderLast)
		}
	}
	return s
}

func entryComment(p Part) string {
	s := fmt.Sprintf("row %d: %s", p.Row, quoteText(p.Text))
	if p.Qty > 0 {
		s += ", qty " + strconv.FormatFloat(p.Qty, 'f', -1, 64)
	}
	var extra []string
	for _, n := range p.Notes {
		// Drive figure provenance is in source:; keep the comment short.
		if !strings.HasPrefix(n, "latency and IOPS:") && !strings.HasPrefix(n, "endurance:") {
			extra = append(extra, n)
		}
	}
	if len(extra) > 0 {
		s += "\n" + strings.Join(extra, "\n")
	}
	return s
}

// quoteText shortens and quotes a quote line for a one-line comment.
func quoteText(s string) string {
	r := []rune(s)
	if len(r) > 70 {
		s = string(r[:67]) + "..."
	}
	return strconv.Quote(s)
}

func flowStrings(v []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, x := range v {
		n.Content = append(n.Content, str(x))
	}
	return n
}

func str(v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v}
}

func num(v float64) *yaml.Node {
	tag := "!!float"
	if v == float64(int64(v)) {
		tag = "!!int"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: strconv.FormatFloat(v, 'f', -1, 64)}
}

// money writes the amount with as many decimals as it has (at least two).
func money(m units.Money) string {
	s := strconv.FormatFloat(m.Amount, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 {
		s += ".00"
	} else if len(s)-i-1 < 2 {
		s += strings.Repeat("0", 2-(len(s)-i-1))
	}
	return s + " " + m.Currency
}

// driveBytes writes a drive size in the decimal units vendors use, exactly:
// 3.84TB, 960GB.
func driveBytes(b units.Bytes) string {
	f := float64(b)
	switch {
	case f >= 1e15 && int64(b)%1e13 == 0:
		return strconv.FormatFloat(f/1e15, 'f', -1, 64) + "PB"
	case f >= 1e12:
		return strconv.FormatFloat(f/1e12, 'f', -1, 64) + "TB"
	case f >= 1e9:
		return strconv.FormatFloat(f/1e9, 'f', -1, 64) + "GB"
	}
	return strconv.FormatInt(int64(b), 10)
}
