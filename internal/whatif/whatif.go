// Package whatif applies a run's what-ifs to its inputs without editing
// the files: --set PATH=VALUE replaces (or adds) one value of the workload
// file before it is parsed and checked like any workload, and --scale
// KIND=FACTOR multiplies the prices of every DIMM, drive or platform of
// the merged catalogs. Each what-if is described in a line the result
// carries, so a plan made with one never passes for the plan of the files.
package whatif

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/prices"
	"github.com/memplan/memplan/units"
	"gopkg.in/yaml.v3"
)

// Prefix starts every line describing a what-if in a result's warnings;
// report --diff reads them back as inputs.
const Prefix = "what-if: "

// Set is one --set PATH=VALUE.
type Set struct {
	Path  string // jobs[0].concurrency, jobs[synth].deadline, horizon
	Value string
}

func (s Set) flag() string { return "--set " + s.Path + "=" + s.Value }

// ParseSet reads PATH=VALUE. Its errors are bad input.
func ParseSet(arg string) (Set, error) {
	path, value, ok := strings.Cut(arg, "=")
	path, value = strings.TrimSpace(path), strings.TrimSpace(value)
	if !ok || path == "" {
		return Set{}, usage.Errorf("--set %q: expected PATH=VALUE, a path into the workload such as jobs[0].concurrency=10 or horizon=5y", arg)
	}
	if value == "" {
		return Set{}, usage.Errorf("--set %s=: no value; write the value after =, e.g. %s=10", path, path)
	}
	if _, err := parsePath(path); err != nil {
		return Set{}, usage.Errorf("--set %s=%s: %v", path, value, err)
	}
	return Set{Path: path, Value: value}, nil
}

type segment struct {
	key   string
	index string // "" when the segment has no [..]
}

var reSegment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\[\]]+)\])?$`)

func parsePath(path string) ([]segment, error) {
	var out []segment
	for _, part := range strings.Split(path, ".") {
		m := reSegment.FindStringSubmatch(part)
		if m == nil {
			return nil, fmt.Errorf("%q is not a path step; expected a field name, optionally with an index or job name: jobs[0], jobs[synth]", part)
		}
		out = append(out, segment{key: m[1], index: strings.TrimSpace(m[2])})
	}
	return out, nil
}

// edit is one change to the file's text: at byte offset off, cut bytes are
// replaced by text.
type edit struct {
	off, cut int
	text     string
	line     int // 1-based line the edit is on
	newLines int // lines the edit inserts
}

// Apply returns the workload file's text with the sets applied, and one
// line per set for the result ("what-if: --set jobs[0].concurrency=10
// (the workload says 4)"). A value that exists is replaced where it is
// written, so every other line keeps its number; a field the file leaves
// out is added to its mapping, on a line of its own, and mappings the
// file leaves out along the path (options: for options.mirror_swap) are
// added with it. schema is the Go type the workload decodes into: a path
// naming a field it does not have is refused before anything is written.
// file names the workload in errors, which name the flag and the path.
func Apply(file string, data []byte, schema reflect.Type, sets []Set) ([]byte, []string, *Lines, error) {
	lm := &Lines{file: file}
	if len(sets) == 0 {
		return data, nil, lm, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil, nil, usage.Errorf("--set: %s is not a YAML mapping that can be edited", file)
	}
	lines := splitLines(data)
	var edits []edit
	var notes []string
	for _, s := range sets {
		if err := checkSchema(schema, s.Path); err != nil {
			return nil, nil, nil, usage.Errorf("%s: %v", s.flag(), err)
		}
		e, was, err := locate(data, doc.Content[0], lines, s)
		if err != nil {
			return nil, nil, nil, usage.Errorf("%s: %v", s.flag(), err)
		}
		for _, o := range edits {
			if o.off == e.off && o.cut == e.cut && o.cut > 0 {
				return nil, nil, nil, usage.Errorf("%s: the path is set twice; give it once", s.flag())
			}
		}
		edits = append(edits, e)
		note := Prefix + s.flag()
		if was != "" {
			note += " (" + file + " says " + was + ")"
		} else {
			note += " (not in " + file + ")"
		}
		notes = append(notes, note)
	}
	for _, e := range edits {
		if e.newLines > 0 {
			lm.inserted = append(lm.inserted, e.line)
		}
	}
	sort.Ints(lm.inserted)
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].off > edits[j].off })
	out := append([]byte(nil), data...)
	for _, e := range edits {
		out = append(out[:e.off], append([]byte(e.text), out[e.off+e.cut:]...)...)
	}
	return out, notes, lm, nil
}

// Lines maps line numbers of the edited workload back to the file's: a
// field --set adds takes a line of its own, and errors found after the
// workload loaded (a job's profile, a catalog it names) would otherwise
// point one line too far down.
type Lines struct {
	file     string
	inserted []int // lines of the file (ascending) a new line went above
}

// Fix corrects the line of an error about the workload file in place and
// returns it.
func (l *Lines) Fix(err error) error {
	var ie *yamlx.InputError
	if l == nil || len(l.inserted) == 0 || !errors.As(err, &ie) || ie.File != l.file || ie.Line == 0 {
		return err
	}
	x, shift := ie.Line, 0
	for _, at := range l.inserted {
		switch {
		case x == at+shift:
			ie.Line = at // the added line: point at the mapping it joined
			return err
		case x > at+shift:
			shift++
		}
	}
	ie.Line = x - shift
	return err
}

// splitLines returns the byte offset each line starts at.
func splitLines(data []byte) []int {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// offset turns a node's 1-based line and (character) column into a byte
// offset, given the text.
func offset(data []byte, lines []int, line, col int) (int, bool) {
	if line < 1 || line > len(lines) {
		return 0, false
	}
	off := lines[line-1]
	for c := 1; c < col; c++ {
		if off >= len(data) || data[off] == '\n' {
			return 0, false
		}
		_, n := utf8.DecodeRune(data[off:])
		off += n
	}
	return off, true
}

// locate finds where the set's value is written (or where its key must be
// added) and returns the edit and the value as the file writes it.
func locate(data []byte, root *yaml.Node, lines []int, s Set) (edit, string, error) {
	segs, _ := parsePath(s.Path)
	cur := root
	where := "the workload"
	for i, seg := range segs {
		if cur.Kind != yaml.MappingNode {
			return edit{}, "", fmt.Errorf("%s is not a mapping, so it has no field %q", where, seg.key)
		}
		var val *yaml.Node
		for j := 0; j+1 < len(cur.Content); j += 2 {
			if cur.Content[j].Value == seg.key {
				val = cur.Content[j+1]
			}
		}
		last := i == len(segs)-1
		if val == nil {
			// The key and, when it is a mapping the file leaves out,
			// the mappings below it down to the value, written in flow
			// style on one line: options: {mirror_swap: true}.
			value := scalar(s.Value)
			for j := len(segs) - 1; j > i; j-- {
				value = "{" + segs[j].key + ": " + value + "}"
			}
			for _, x := range segs[i:] {
				if x.index != "" {
					return edit{}, "", fmt.Errorf("%s has no %s: --set adds fields and mappings, not list entries; add %s to the file first", where, seg.key, seg.key)
				}
			}
			e, err := insert(data, lines, cur, seg.key, value)
			return e, "", err
		}
		here := seg.key
		if where != "the workload" {
			here = where + "." + seg.key
		}
		if seg.index != "" {
			if val.Kind != yaml.SequenceNode {
				return edit{}, "", fmt.Errorf("%s is not a list, so [%s] picks nothing", here, seg.index)
			}
			el, err := pick(val, seg.index, here)
			if err != nil {
				return edit{}, "", err
			}
			val, here = el, here+"["+seg.index+"]"
		}
		where = here
		cur = val
		if last {
			return replace(data, lines, cur, s.Value, where)
		}
	}
	return edit{}, "", fmt.Errorf("empty path")
}

// pick selects a list element by 0-based index or by its name: field.
func pick(list *yaml.Node, index, where string) (*yaml.Node, error) {
	n := len(list.Content)
	if i, err := strconv.Atoi(index); err == nil {
		if i < 0 || i >= n {
			if n == 0 {
				return nil, fmt.Errorf("%s is empty", where)
			}
			if n == 1 {
				return nil, fmt.Errorf("%s has 1 entry, %s[0]", where, where)
			}
			return nil, fmt.Errorf("%s has %d entries, %s[0] to %s[%d]", where, n, where, where, n-1)
		}
		return list.Content[i], nil
	}
	var names []string
	for _, el := range list.Content {
		if el.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(el.Content); j += 2 {
			if el.Content[j].Value == "name" {
				if el.Content[j+1].Value == index {
					return el, nil
				}
				names = append(names, el.Content[j+1].Value)
			}
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s has no entry named %q; pick one by its 0-based number", where, index)
	}
	return nil, fmt.Errorf("%s has no entry named %q; the names are %s", where, index, strings.Join(names, ", "))
}

func keys(m *yaml.Node) string {
	var ks []string
	for j := 0; j+1 < len(m.Content); j += 2 {
		ks = append(ks, m.Content[j].Value)
	}
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}

// replace rewrites a scalar where it is written.
func replace(data []byte, lines []int, n *yaml.Node, value, where string) (edit, string, error) {
	if n.Kind != yaml.ScalarNode {
		if n.Kind == yaml.SequenceNode {
			return edit{}, "", fmt.Errorf("%s is a list in the file; --set replaces one value (pick an entry, e.g. %s[0].FIELD)", where, where)
		}
		return edit{}, "", fmt.Errorf("%s is a mapping in the file; --set replaces one value (set one of its fields: %s)", where, keys(n))
	}
	off, ok := offset(data, lines, n.Line, n.Column)
	if !ok {
		return edit{}, "", fmt.Errorf("cannot find where %s is written", where)
	}
	rest := data[off:]
	if i := strings.IndexByte(string(rest), '\n'); i >= 0 {
		rest = rest[:i]
	}
	var cut int
	switch n.Style {
	case yaml.DoubleQuotedStyle:
		cut = closing(rest, '"')
	case yaml.SingleQuotedStyle:
		cut = closing(rest, '\'')
	case 0, yaml.TaggedStyle:
		if strings.HasPrefix(string(rest), n.Value) && n.Value != "" {
			cut = len(n.Value)
		}
	}
	if cut <= 0 {
		return edit{}, "", fmt.Errorf("%s is written over several lines or in a form --set does not edit; edit the file", where)
	}
	return edit{off: off, cut: cut, text: scalar(value), line: n.Line}, string(rest[:cut]), nil
}

// closing returns the length of a quoted scalar at the start of s,
// quotes included, or 0 if it does not close on this line.
func closing(s []byte, q byte) int {
	for i := 1; i < len(s); i++ {
		switch {
		case q == '"' && s[i] == '\\':
			i++
		case s[i] == q && q == '\'' && i+1 < len(s) && s[i+1] == '\'':
			i++
		case s[i] == q:
			return i + 1
		}
	}
	return 0
}

var rePlain = regexp.MustCompile(`^[A-Za-z0-9_./%+-][A-Za-z0-9_./%+ -]*$`)

// scalar writes a value so YAML reads it back as the person typed it:
// plain when it is safe, double-quoted otherwise; a flow list or mapping
// ([0.25, 0.5]) as written.
func scalar(v string) string {
	if (strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]")) || (strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}")) {
		return v
	}
	if rePlain.MatchString(v) && !strings.HasSuffix(v, " ") && !strings.Contains(v, " #") {
		return v
	}
	return strconv.Quote(v)
}

// checkSchema refuses a path that names a field the workload's schema
// does not have, naming that field and the ones its mapping takes.
func checkSchema(t reflect.Type, path string) error {
	if t == nil {
		return nil
	}
	segs, err := parsePath(path)
	if err != nil {
		return err
	}
	where := "the workload"
	for _, seg := range segs {
		fields, ok := yamlx.MappingFields(t)
		if !ok && t.Kind() == reflect.Slice {
			return fmt.Errorf("%s is a list, so it has no field %q (pick an entry: %s[0].%s)", where, seg.key, where, seg.key)
		}
		if !ok {
			return fmt.Errorf("%s is a single value, so it has no field %q", where, seg.key)
		}
		ft, ok := fields[seg.key]
		if !ok {
			names := make([]string, 0, len(fields))
			for k := range fields {
				names = append(names, k)
			}
			sort.Strings(names)
			return fmt.Errorf("%s has no field %q (check the spelling; its fields are %s)", where, seg.key, strings.Join(names, ", "))
		}
		if where == "the workload" {
			where = seg.key
		} else {
			where += "." + seg.key
		}
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if seg.index != "" {
			if ft.Kind() != reflect.Slice {
				return fmt.Errorf("%s is not a list, so [%s] picks nothing", where, seg.index)
			}
			ft = ft.Elem()
			where += "[" + seg.index + "]"
		}
		t = ft
	}
	return nil
}

// insert adds "key: value" to a mapping the file writes without it; value
// is written as it is (scalar has made it YAML).
func insert(data []byte, lines []int, m *yaml.Node, key, value string) (edit, error) {
	if len(m.Content) == 0 {
		// An empty mapping is written {}: add inside the braces.
		off, ok := offset(data, lines, m.Line, m.Column)
		if !ok || off >= len(data) || data[off] != '{' {
			return edit{}, fmt.Errorf("cannot find where to add %s", key)
		}
		return edit{off: off + 1, text: key + ": " + value, line: m.Line}, nil
	}
	first := m.Content[0]
	off, ok := offset(data, lines, first.Line, first.Column)
	if !ok {
		return edit{}, fmt.Errorf("cannot find where to add %s", key)
	}
	if m.Style&yaml.FlowStyle != 0 {
		return edit{off: off, text: key + ": " + value + ", ", line: first.Line}, nil
	}
	// Block style: a line of its own above the first key, at its indent.
	return edit{off: off, text: key + ": " + value + "\n" + strings.Repeat(" ", first.Column-1), line: first.Line, newLines: 1}, nil
}

// Explain turns a parse error of the edited workload into one that names
// the set flags: the file as written parsed, so the sets are at fault.
// Line numbers of the edited text mean nothing to the person, so they are
// left out; the field and the message are kept.
func Explain(err error, sets []Set) error {
	var flags []string
	for _, s := range sets {
		flags = append(flags, s.flag())
	}
	var ie *yamlx.InputError
	msg := err.Error()
	if errors.As(err, &ie) {
		msg = ie.Msg
		if ie.Field != "" {
			msg = ie.Field + ": " + msg
		}
		if ie.Hint != "" {
			msg += " (" + ie.Hint + ")"
		}
	}
	what := "this value"
	if len(flags) > 1 {
		what = "these values"
	}
	return usage.Errorf("%s: the workload with %s does not load: %s", strings.Join(flags, " "), what, msg)
}

// Scale is one --scale KIND=FACTOR.
type Scale struct {
	Kind   string // dram, drives, platforms
	Factor float64
	arg    string
}

// ScaleKinds are the part kinds --scale takes.
var ScaleKinds = []string{"dram", "drives", "platforms"}

// ParseScale reads KIND=FACTOR: 1.3, 130% or +30% (all the same). Its
// errors are bad input.
func ParseScale(arg string) (Scale, error) {
	kind, v, ok := strings.Cut(arg, "=")
	kind, v = strings.ToLower(strings.TrimSpace(kind)), strings.TrimSpace(v)
	if !ok {
		return Scale{}, usage.Errorf("--scale %q: expected KIND=FACTOR such as dram=1.3 (kinds: %s)", arg, strings.Join(ScaleKinds, ", "))
	}
	switch kind {
	case "dimm", "dimms", "ram", "memory":
		kind = "dram"
	case "drive", "ssd", "ssds":
		kind = "drives"
	case "platform", "servers", "server":
		kind = "platforms"
	}
	if kind != "dram" && kind != "drives" && kind != "platforms" {
		return Scale{}, usage.Errorf("--scale %s: unknown kind %q; expected %s", arg, kind, strings.Join(ScaleKinds, ", "))
	}
	f, err := parseFactor(v)
	if err != nil || f <= 0 || f > 100 || math.IsNaN(f) {
		return Scale{}, usage.Errorf("--scale %s: %q is not a factor; expected a number above 0 and at most 100 such as 1.3, or a percentage such as 130%% or +30%%", arg, v)
	}
	return Scale{Kind: kind, Factor: f, arg: kind + "=" + v}, nil
}

func parseFactor(v string) (float64, error) {
	switch {
	case strings.HasSuffix(v, "%") && (strings.HasPrefix(v, "+") || strings.HasPrefix(v, "-")):
		p, err := strconv.ParseFloat(strings.TrimSuffix(v[1:], "%"), 64)
		if err != nil {
			return 0, err
		}
		if v[0] == '-' {
			p = -p
		}
		return 1 + p/100, nil
	case strings.HasSuffix(v, "%"):
		p, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
		return p / 100, err
	}
	return strconv.ParseFloat(v, 64)
}

// ApplyScales multiplies the prices (and price ranges) of the set's parts
// and returns one line per scale for the result. Two scales of one kind
// are refused: which one was meant cannot be told.
func ApplyScales(s *prices.Set, scales []Scale) ([]string, error) {
	seen := map[string]string{}
	var notes []string
	for _, sc := range scales {
		if prev, ok := seen[sc.Kind]; ok {
			return nil, usage.Errorf("--scale %s and --scale %s both scale %s; give one", prev, sc.arg, sc.Kind)
		}
		seen[sc.Kind] = sc.arg
		n := 0
		switch sc.Kind {
		case "dram":
			for i := range s.DIMMs {
				s.DIMMs[i].PriceRange = scaleMoney(&s.DIMMs[i].Price, s.DIMMs[i].PriceRange, sc.Factor)
				n++
			}
		case "drives":
			for i := range s.Drives {
				s.Drives[i].PriceRange = scaleMoney(&s.Drives[i].Price, s.Drives[i].PriceRange, sc.Factor)
				n++
			}
		case "platforms":
			for i := range s.Platforms {
				s.Platforms[i].PriceRange = scaleMoney(&s.Platforms[i].Price, s.Platforms[i].PriceRange, sc.Factor)
				n++
			}
		}
		what := map[string]string{"dram": "DIMM", "drives": "drive", "platforms": "platform"}[sc.Kind]
		if n != 1 {
			what += "s"
		}
		notes = append(notes, fmt.Sprintf("%s--scale %s: %d %s priced at %s x the catalog price", Prefix, sc.arg, n, what, strconv.FormatFloat(sc.Factor, 'f', -1, 64)))
	}
	return notes, nil
}

// scaleMoney scales a price and returns its range scaled, as a copy: the
// catalogs the set was merged from share the range's array.
func scaleMoney(m *units.Money, rng []units.Money, f float64) []units.Money {
	m.Amount = round4(m.Amount * f)
	if rng == nil {
		return nil
	}
	out := append([]units.Money(nil), rng...)
	for i := range out {
		out[i].Amount = round4(out[i].Amount * f)
	}
	return out
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }
