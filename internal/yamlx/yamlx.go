// Package yamlx decodes hand-edited YAML strictly (unknown fields are errors)
// and turns every failure into an *InputError that names the file, line,
// field path and what was expected, so the person editing the file can find
// and fix it without reading Go.
package yamlx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/units"
	"gopkg.in/yaml.v3"
)

// InputError is an error in a file a person wrote.
type InputError struct {
	File   string
	Line   int    // 1-based; 0 when the whole file is at fault
	Column int    // 1-based; 0 when unknown
	Field  string // dotted path such as "dimms[2].price"; empty for the file
	Msg    string // what is wrong and what was expected
	Hint   string // how to fix it, optional
	// Kind is set when the file is another kind of input than the one
	// expected (WrongKind): one of the Kind constants.
	Kind string
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Field != "" {
		fmt.Fprintf(&b, "field %s: ", e.Field)
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString(" (")
		b.WriteString(e.Hint)
		b.WriteString(")")
	}
	return b.String()
}

// ErrInput is matched by errors.Is for every InputError. It is
// usage.ErrInput, the one bad-input kind of every package, under the name
// the decoders' callers have always used.
var ErrInput = usage.ErrInput

func (e *InputError) Is(target error) bool { return target == ErrInput }

// Doc remembers where each field of a decoded file stood, so checks made
// after decoding (a negative price, a DIMM the platform cannot take) can
// still point at a line.
type Doc struct {
	File    string
	paths   map[string]pos // field path -> position of its value
	byPos   map[int][]entry
	root    *yaml.Node // parsed tree; indexed on first need (errors only)
	indexed bool
}

type pos struct{ line, col int }

type entry struct {
	path    string
	col     int
	isKey   bool
	keyName string
	parent  string
	value   string // scalar value nodes only
	scalar  bool
}

// Decode strictly decodes data into v. The returned Doc locates fields for
// later validation errors.
func Decode(file string, data []byte, v any) (*Doc, error) {
	doc := &Doc{File: file, paths: map[string]pos{}, byPos: map[int][]entry{}}
	if len(bytes.TrimSpace(stripComments(data))) == 0 {
		return doc, &InputError{File: file, Msg: "file is empty", Hint: "see docs/input-files.md for the format and examples/ for a starting point"}
	}
	// Parse once into a node tree; every check and the decode work from it.
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if err := jsonSyntax(file, data); err != nil {
			return doc, err
		}
		if line := tabIndentLine(data); line > 0 {
			return doc, &InputError{File: file, Line: line, Msg: "YAML syntax: a tab is used for indentation", Hint: "indent with spaces"}
		}
		return doc, doc.wrapSyntax(err, firstFailingLine(data))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return doc, doc.wrapSyntax(err, firstFailingLine(data))
		}
		return doc, &InputError{File: file, Line: extra.Line, Msg: "more than one YAML document in the file", Hint: "remove the extra '---' section"}
	}
	doc.root = &root
	if err := doc.checkFinite(&root); err != nil {
		return doc, err
	}
	if errs := doc.checkKnown(&root, reflect.TypeOf(v), ""); len(errs) > 0 {
		return doc, errors.Join(errs...)
	}
	if err := root.Decode(v); err != nil {
		return doc, doc.wrap(err)
	}
	return doc, nil
}

var unmarshalerType = reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()

// checkKnown reports mapping keys that name no field of the Go type they
// decode into (yaml.v3 does this only when decoding from a byte stream;
// memplan decodes from the parsed tree to parse each file once).
func (d *Doc) checkKnown(n *yaml.Node, t reflect.Type, path string) []error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || n == nil || reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType) {
		return nil
	}
	if n.Kind == yaml.DocumentNode {
		var errs []error
		for _, c := range n.Content {
			errs = append(errs, d.checkKnown(c, t, path)...)
		}
		return errs
	}
	if n.Kind == yaml.AliasNode {
		return d.checkKnown(n.Alias, t, path)
	}
	var errs []error
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		// yaml.v3 truncates a fraction into an integer field (12.5 is
		// read as 12) without a word.
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
			if f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err == nil && f != math.Trunc(f) {
				errs = append(errs, &InputError{File: d.File, Line: n.Line, Column: n.Column, Field: path,
					Msg: fmt.Sprintf("got %s, expected a whole number", n.Value)})
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil // the decoder reports the kind mismatch
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			p := join(path, k.Value)
			if k.ShortTag() == "!!merge" {
				errs = append(errs, &InputError{File: d.File, Line: k.Line, Column: k.Column, Field: p,
					Msg:  "YAML merge keys (<<) are not supported",
					Hint: "write the fields out in full; an anchor may stand for a whole value (price: *p), not for fields to merge"})
				continue
			}
			ft, ok := fieldType(t, k.Value)
			if !ok {
				errs = append(errs, &InputError{File: d.File, Line: k.Line, Field: p, Msg: "unknown field",
					Hint: "check the spelling; docs/input-files.md lists the fields this file takes"})
				continue
			}
			errs = append(errs, d.checkKnown(val, ft, p)...)
		}
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				errs = append(errs, d.checkKnown(c, t.Elem(), path+"["+strconv.Itoa(i)+"]")...)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				errs = append(errs, d.checkKnown(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))...)
			}
		}
	}
	return errs
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fieldType finds the struct field a YAML key decodes into, following
// yaml.v3's rules: the tag name, else the lower-cased field name; inline
// structs contribute their fields.
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	fieldsMu.Lock()
	m, ok := fieldsCache[t]
	if !ok {
		m = map[string]reflect.Type{}
		collectFields(t, m)
		fieldsCache[t] = m
	}
	fieldsMu.Unlock()
	ft, ok := m[key]
	return ft, ok
}

var (
	fieldsMu    sync.Mutex
	fieldsCache = map[reflect.Type]map[string]reflect.Type{}
)

// MappingFields returns the YAML keys a Go type decodes from a mapping,
// by the rules the strict decoder checks them with, and the type each key
// decodes into. ok is false when the type is not read field by field: a
// scalar, a list, or a type with its own UnmarshalYAML (a duration, a
// price). Tools that write into a file (memplan's --set) use it to tell a
// field the schema knows from a typo before writing anything.
func MappingFields(t reflect.Type) (fields map[string]reflect.Type, ok bool) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(unmarshalerType) || t.Implements(unmarshalerType) {
		return nil, false
	}
	m := map[string]reflect.Type{}
	collectFields(t, m)
	return m, true
}

// collectFields maps every YAML key a struct type accepts to its field type.
func collectFields(t reflect.Type, m map[string]reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(","+opts+",", ",inline,") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				collectFields(ft, m)
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if _, dup := m[name]; !dup {
			m[name] = f.Type
		}
	}
}

// checkFinite refuses YAML's .nan and .inf anywhere: no quantity memplan
// reads may be infinite or not a number, and comparisons such as x <= 0 let
// NaN slip through.
func (d *Doc) checkFinite(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!float" || n.Tag == "") {
		v := strings.ToLower(strings.TrimLeft(n.Value, "+-"))
		if v == ".nan" || v == ".inf" {
			return &InputError{File: d.File, Line: n.Line, Column: n.Column, Field: d.lookupValue(n.Line, n.Value),
				Msg: fmt.Sprintf("got %s, expected a finite number", n.Value)}
		}
	}
	for _, c := range n.Content {
		if err := d.checkFinite(c); err != nil {
			return err
		}
	}
	return nil
}

// Kinds of memplan's input files, as Kind names them.
const (
	KindCatalog  = "a price catalog"
	KindWorkload = "a workload"
	KindFactors  = "a factor file (or profile)"
	KindRates    = "a rates file"
)

// Kind tells which of memplan's input files data is by the top-level keys
// only that kind has, or "" when it cannot tell (or data does not parse).
// A file given where another kind was expected is then refused as that
// instead of as a list of unknown fields.
func Kind(data []byte) string {
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return ""
	}
	keys := map[string]bool{}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		keys[m.Content[i].Value] = true
	}
	switch {
	case keys["dimms"] || keys["drives"] || keys["platforms"]:
		return KindCatalog
	case keys["jobs"]:
		return KindWorkload
	case keys["curves"] || keys["software"] || keys["shapes"]:
		return KindFactors
	case keys["rates"] && !keys["name"]:
		return KindRates
	}
	return ""
}

// WrongKind is the error for a file of another kind than want (one of the
// Kind constants), or nil when data is not recognisably another kind.
// hint says where that kind of file is given instead.
func WrongKind(file string, data []byte, want string) *InputError {
	k := Kind(data)
	if k == "" || k == want {
		return nil
	}
	return &InputError{File: file, Msg: fmt.Sprintf("this is %s, not %s", k, want), Hint: kindHint[k], Kind: k}
}

var kindHint = map[string]string{
	KindCatalog:  "give price catalogs with --prices",
	KindWorkload: "give the workload with -w/--workload",
	KindFactors:  "give factor files with --factors, or name a profile in a job's profile: field",
	KindRates:    "give rates files with --rates",
}

// jsonSyntax reports a syntax error in a file written as JSON at its line
// and column. The YAML parser reads JSON too, but a JSON document is one
// flow mapping from its first line, and the YAML parser's error (and the
// shortest failing prefix) points at line 1 whatever the fault; encoding/
// json gives the byte offset of the first fault. It returns nil for a file
// that is not JSON, or has no JSON syntax error.
func jsonSyntax(file string, data []byte) error {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(t) == 0 || (t[0] != '{' && t[0] != '[') {
		return nil
	}
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil
	}
	off := min(int(se.Offset), len(data))
	// The offset is just past the byte that did not fit: point at it.
	if off > 0 {
		off--
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := 1 + utf8.RuneCount(data[bytes.LastIndexByte(data[:off], '\n')+1:off])
	return &InputError{File: file, Line: line, Column: col, Msg: "JSON syntax: " + se.Error(), Hint: "check for a missing comma, quote or bracket just before"}
}

// tabIndentLine returns the first line indented with a tab (YAML forbids
// it, and the parser reports such errors at an unrelated line), or 0.
func tabIndentLine(data []byte) int {
	for i, l := range bytes.Split(data, []byte("\n")) {
		for _, c := range l {
			if c == '\t' {
				return i + 1
			}
			if c != ' ' {
				break
			}
		}
	}
	return 0
}

func stripComments(data []byte) []byte {
	var out [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		t := bytes.TrimSpace(l)
		if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) {
			continue
		}
		out = append(out, l)
	}
	return bytes.Join(out, []byte("\n"))
}

func (d *Doc) index(n *yaml.Node, path string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			d.index(c, path)
		}
	case yaml.MappingNode:
		d.record(n, path)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			d.byPos[k.Line] = append(d.byPos[k.Line], entry{path: p, col: k.Column, isKey: true, keyName: k.Value, parent: path})
			d.index(val, p)
		}
	case yaml.SequenceNode:
		d.record(n, path)
		for i, c := range n.Content {
			d.index(c, path+"["+strconv.Itoa(i)+"]")
		}
	default:
		d.record(n, path)
	}
}

func (d *Doc) record(n *yaml.Node, path string) {
	if _, ok := d.paths[path]; !ok {
		d.paths[path] = pos{n.Line, n.Column}
	}
	d.byPos[n.Line] = append(d.byPos[n.Line], entry{path: path, col: n.Column, value: n.Value, scalar: n.Kind == yaml.ScalarNode})
}

// lookup finds the field path for a value at line/col (col 0: first on line).
// ensureIndex builds the position index the first time an error needs it:
// files that load cleanly never pay for it.
func (d *Doc) ensureIndex() {
	if d.indexed || d.root == nil {
		return
	}
	d.indexed = true
	d.index(d.root, "")
}

func (d *Doc) lookup(line, col int) string {
	d.ensureIndex()
	es := d.byPos[line]
	for _, e := range es {
		if !e.isKey && (col == 0 || e.col == col) {
			return e.path
		}
	}
	for _, e := range es {
		if e.isKey {
			return e.path
		}
	}
	return ""
}

// lookupValue finds the field whose scalar value on that line is value; a
// mapping or list that merely starts on the same line (a list item's first
// key, a flow mapping) must not take the blame. Without a match it falls
// back to the first value node on the line.
func (d *Doc) lookupValue(line int, value string) string {
	d.ensureIndex()
	if value != "" {
		best := ""
		for _, e := range d.byPos[line] {
			if e.scalar && !e.isKey && e.value == value && len(e.path) > len(best) {
				best = e.path
			}
		}
		if best != "" {
			return best
		}
	}
	return d.lookup(line, 0)
}

var (
	lineRe     = regexp.MustCompile(`^line (\d+): (.*)$`)
	notFoundRe = regexp.MustCompile(`^field (.+) not found in type \S+$`)
	unmarshRe  = regexp.MustCompile("^cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$")
)

// wrapSyntax turns a parser error into an InputError. yaml.v3 reports the
// line where the enclosing block began, not the offending line, so the
// caller passes the first line at which the document stops parsing (0 if
// unknown) and that wins.
func (d *Doc) wrapSyntax(err error, at int) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := lineRe.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	if at > 0 {
		line = at
	}
	return &InputError{File: d.File, Line: line, Msg: "YAML syntax: " + msg, Hint: "check indentation and quoting"}
}

// firstFailingLine returns the first line whose addition makes the document
// unparseable: the shortest failing prefix. Only for modest files.
func firstFailingLine(data []byte) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) > 5000 {
		return 0
	}
	var n yaml.Node
	prefix := make([]byte, 0, len(data))
	for i, l := range lines {
		prefix = append(prefix, l...)
		if yaml.Unmarshal(prefix, &n) != nil {
			return i + 1
		}
	}
	return 0
}

func (d *Doc) wrap(err error) error {
	var ue *units.Error
	if errors.As(err, &ue) {
		msg := fmt.Sprintf("got %q, expected %s", ue.Value, ue.Expected)
		if ue.Problem != "" {
			msg = fmt.Sprintf("got %q: %s", ue.Value, ue.Problem)
		}
		return &InputError{File: d.File, Line: ue.Line, Column: ue.Column, Field: d.lookup(ue.Line, ue.Column), Msg: msg}
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var errs []error
		for _, s := range te.Errors {
			errs = append(errs, d.typeError(s))
		}
		return errors.Join(errs...)
	}
	return d.wrapSyntax(err, 0)
}

func (d *Doc) typeError(s string) error {
	d.ensureIndex()
	m := lineRe.FindStringSubmatch(s)
	if m == nil {
		return &InputError{File: d.File, Msg: s}
	}
	line, _ := strconv.Atoi(m[1])
	rest := m[2]
	if f := notFoundRe.FindStringSubmatch(rest); f != nil {
		field := f[1]
		path := field
		for _, e := range d.byPos[line] {
			if e.isKey && e.keyName == field {
				path = e.path
				break
			}
		}
		return &InputError{File: d.File, Line: line, Field: path, Msg: "unknown field",
			Hint: "check the spelling; docs/input-files.md lists the fields this file takes"}
	}
	if u := unmarshRe.FindStringSubmatch(rest); u != nil {
		field := d.lookupValue(line, u[2])
		if u[1] == "map" || u[1] == "seq" {
			return &InputError{File: d.File, Line: line, Field: field,
				Msg: fmt.Sprintf("got %s, expected %s", tagName(u[1]), goTypeName(u[3]))}
		}
		return &InputError{File: d.File, Line: line, Field: field,
			Msg: fmt.Sprintf("got %s %q, expected %s", tagName(u[1]), u[2], goTypeName(u[3]))}
	}
	return &InputError{File: d.File, Line: line, Field: d.lookup(line, 0), Msg: rest}
}

func tagName(t string) string {
	switch t {
	case "str":
		return "text"
	case "int", "float":
		return "number"
	case "seq":
		return "a list"
	case "map":
		return "a mapping"
	case "bool":
		return "true/false"
	}
	return t
}

func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "[]"):
		return "a list"
	case strings.HasPrefix(t, "map["):
		return "a mapping"
	case strings.HasPrefix(t, "int") || strings.HasPrefix(t, "uint"):
		return "a whole number"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "bool":
		return "true or false"
	case t == "string":
		return "text"
	}
	return "a mapping of fields"
}

// Errorf builds an InputError for the field at path (as produced by the
// decoder: "dimms[2].price"). If the path is not in the file, the nearest
// enclosing field that is supplies the line.
func (d *Doc) Errorf(path, hint, format string, args ...any) *InputError {
	d.ensureIndex()
	e := &InputError{File: d.File, Field: path, Msg: fmt.Sprintf(format, args...), Hint: hint}
	for p := path; ; {
		if ps, ok := d.paths[p]; ok {
			e.Line, e.Column = ps.line, ps.col
			break
		}
		i := strings.LastIndexAny(p, ".[")
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return e
}

// Line returns the line of the field at path, or 0. Before an error has
// built the index it walks the tree to the field (nodeAt), so that
// validating a clean file asks for lines without indexing all of it.
func (d *Doc) Line(path string) int {
	if d == nil {
		return 0
	}
	if !d.indexed && d.root != nil {
		if n := nodeAt(d.root, "", path); n != nil {
			return n.Line
		}
		return 0
	}
	d.ensureIndex()
	return d.paths[path].line
}

// nodeAt is the node the index records at target (the first in document
// order to have that path), found by walking down from n, whose path is
// path: each child's path is made as index makes it, and only a child
// whose path begins target can hold it. Like the index, it does not
// follow aliases.
func nodeAt(n *yaml.Node, path, target string) *yaml.Node {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			if r := nodeAt(c, path, target); r != nil {
				return r
			}
		}
		return nil
	}
	if path == target {
		return n
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := n.Content[i].Value
			if path != "" {
				p = path + "." + p
			}
			if strings.HasPrefix(target, p) {
				if r := nodeAt(n.Content[i+1], p, target); r != nil {
					return r
				}
			}
		}
	case yaml.SequenceNode:
		// The one item whose path [i] begins what follows path.
		rest, ok := strings.CutPrefix(target, path+"[")
		end := strings.IndexByte(rest, ']')
		if !ok || end < 0 {
			return nil
		}
		i, err := strconv.Atoi(rest[:end])
		if err != nil || i < 0 || i >= len(n.Content) || rest[:end] != strconv.Itoa(i) {
			return nil
		}
		return nodeAt(n.Content[i], path+"["+rest[:end]+"]", target)
	}
	return nil
}

// Value returns the text of the scalar at path as written in the file
// ("48GB"), or "" when the path holds no scalar. Reports use it to show
// what a value was read from.
func (d *Doc) Value(path string) string {
	if d == nil {
		return ""
	}
	d.ensureIndex()
	ps, ok := d.paths[path]
	if !ok {
		return ""
	}
	for _, e := range d.byPos[ps.line] {
		if e.scalar && !e.isKey && e.path == path {
			return e.value
		}
	}
	return ""
}
