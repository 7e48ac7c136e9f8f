package yamlx_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/units"
)

type part struct {
	SKU      string         `yaml:"sku"`
	Capacity units.Bytes    `yaml:"capacity"`
	Price    units.Money    `yaml:"price"`
	Latency  units.Duration `yaml:"latency,omitempty"`
	Speed    int            `yaml:"speed,omitempty"`
	Tags     []string       `yaml:"tags,omitempty"`
}

type file struct {
	Name  string           `yaml:"name"`
	Parts []part           `yaml:"parts"`
	Limit map[string]int   `yaml:"limits,omitempty"`
	Sub   *struct{ X int } `yaml:"sub,omitempty"`
	OK    bool             `yaml:"ok,omitempty"`
}

const good = `# a comment
name: test
parts:
  - sku: A
    capacity: 64GiB
    price: 700 USD
  - sku: B
    capacity: 32GiB
    price: 360 USD
    latency: 75us
    speed: 5600
    tags: [x, y]
`

func TestDecodeGood(t *testing.T) {
	var f file
	doc, err := yamlx.Decode("good.yaml", []byte(good), &f)
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "test" || len(f.Parts) != 2 || f.Parts[1].Capacity != 32*units.GiB || f.Parts[1].Price.Currency != "USD" {
		t.Errorf("decoded %+v", f)
	}
	for path, line := range map[string]int{
		"name": 2, "parts": 4, "parts[0]": 4, "parts[0].sku": 4, "parts[0].price": 6,
		"parts[1].price": 9, "parts[1].tags": 12, "parts[1].tags[1]": 12, "nosuch": 0,
	} {
		if got := doc.Line(path); got != line {
			t.Errorf("Line(%q) = %d, want %d", path, got, line)
		}
	}
	var nilDoc *yamlx.Doc
	if nilDoc.Line("name") != 0 {
		t.Error("nil Doc has lines")
	}
}

// want describes the one error a bad file must produce.
type want struct {
	line  int    // exact line; 0 = none
	col   int    // exact column; 0 = not checked
	field string // exact field path; "" = none
	has   []string
	exact string // the whole message; "" = not checked
}

func checkInputError(t *testing.T, file string, err error, w want) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", file)
	}
	if !errors.Is(err, yamlx.ErrInput) {
		t.Errorf("%s: errors.Is(err, ErrInput) is false for %v", file, err)
	}
	var ie *yamlx.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%s: %T is not an *InputError: %v", file, err, err)
	}
	msg := err.Error()
	if ie.File != file || !strings.HasPrefix(msg, file+":") {
		t.Errorf("%s: error does not start with the file name: %q", file, msg)
	}
	if ie.Line != w.line {
		t.Errorf("%s: line %d, want %d: %q", file, ie.Line, w.line, msg)
	}
	if w.line > 0 && !strings.HasPrefix(msg, fmt.Sprintf("%s:%d:", file, w.line)) {
		t.Errorf("%s: message does not carry :%d: %q", file, w.line, msg)
	}
	if w.exact != "" && msg != w.exact {
		t.Errorf("%s: message\n%s\nwant\n%s", file, msg, w.exact)
	}
	if w.col > 0 && ie.Column != w.col {
		t.Errorf("%s: column %d, want %d", file, ie.Column, w.col)
	}
	if ie.Field != w.field {
		t.Errorf("%s: field %q, want %q: %q", file, ie.Field, w.field, msg)
	}
	if w.field != "" && !strings.Contains(msg, "field "+w.field+":") {
		t.Errorf("%s: message does not name field %s: %q", file, w.field, msg)
	}
	for _, h := range w.has {
		if !strings.Contains(msg, h) {
			t.Errorf("%s: message %q lacks %q", file, msg, h)
		}
	}
	if strings.Contains(msg, "yamlx_test.") || strings.Contains(msg, "[]yamlx") || strings.Contains(msg, "map[") || strings.Contains(msg, "goroutine") {
		t.Errorf("%s: message leaks Go internals: %q", file, msg)
	}
}

func TestDecodeBadInput(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want want
	}{
		{"unknown field", "name: x\nparts:\n  - sku: A\n    capacty: 64GiB\n",
			want{line: 4, field: "parts[0].capacty", has: []string{"unknown field", "check the spelling"}}},
		{"unknown top-level field", "name: x\nnmae: y\n",
			want{line: 2, field: "nmae", has: []string{"unknown field"}}},
		{"wrong unit", "name: x\nparts:\n  - sku: A\n    capacity: 64 gigs\n",
			want{line: 4, col: 15, field: "parts[0].capacity", has: []string{`got "64 gigs"`, `expected a size such as "48GiB"`}}},
		{"wrong duration", "name: x\nparts:\n  - sku: A\n  - sku: B\n    latency: 8 hours\n",
			want{line: 5, col: 14, field: "parts[1].latency", has: []string{`got "8 hours"`, "expected a duration"}}},
		{"lower-case currency", "name: x\nparts:\n  - sku: A\n    price: 12 usd\n",
			want{line: 4, col: 12, field: "parts[0].price", has: []string{`got "12 usd"`, "expected an amount with a currency"}}},
		{"text for a number", "name: x\nparts:\n  - sku: A\n    speed: fast\n",
			want{line: 4, field: "parts[0].speed", has: []string{`got text "fast"`, "expected a whole number"}}},
		{"fraction for a whole number", "name: x\nparts:\n  - sku: A\n    speed: 12.5\n",
			want{line: 4, col: 12, field: "parts[0].speed", exact: "in.yaml:4:12: field parts[0].speed: got 12.5, expected a whole number"}},
		{"fraction in a map of whole numbers", "name: x\nlimits: {a: 1, b: 2.5}\n",
			want{line: 2, col: 19, field: "limits.b", exact: "in.yaml:2:19: field limits.b: got 2.5, expected a whole number"}},
		{"merge key", "name: x\nparts:\n  - &a\n    sku: A\n  - <<: *a\n    capacity: 1GiB\n",
			want{line: 5, col: 5, field: "parts[1].<<", exact: "in.yaml:5:5: field parts[1].<<: YAML merge keys (<<) are not supported (write the fields out in full; an anchor may stand for a whole value (price: *p), not for fields to merge)"}},
		{"JSON syntax", "{\n  \"name\": \"x\",\n  \"parts\": [\n    {\"sku\": \"A\"}\n    {\"sku\": \"B\"}\n  ]\n}\n",
			want{line: 5, col: 5, exact: "in.yaml:5:5: JSON syntax: invalid character '{' after array element (check for a missing comma, quote or bracket just before)"}},
		{"text for a bool", "name: x\nok: maybe\n",
			want{line: 2, field: "ok", has: []string{`got text "maybe"`, "expected true or false"}}},
		{"scalar for a list", "name: x\nparts: none\n",
			want{line: 2, field: "parts", has: []string{`got text "none"`, "expected a list"}}},
		{"list for a unit", "name: x\nparts:\n  - sku: A\n    capacity: [1GiB]\n",
			want{line: 4, col: 15, field: "parts[0].capacity", has: []string{"a list", "expected a size"}}},
		{"empty file", "", want{has: []string{"file is empty"}}},
		{"only comments", "# nothing here\n\n   # still nothing\n---\n", want{has: []string{"file is empty"}}},
		{"two documents", "name: x\n---\nname: y\n", want{line: 2, has: []string{"more than one YAML document"}}},
		{"duplicate key", "name: x\nparts: []\nname: y\n", want{line: 3, field: "name", has: []string{`"name" already defined at line 1`}}},
		{"unclosed flow list", "name: [x\n", want{line: 1, has: []string{"YAML syntax", "check indentation and quoting"}}},
		{"unclosed quote", "name: x\nparts:\n  - sku: \"A\n", want{line: 3, has: []string{"YAML syntax", "end of stream"}}},
		{"mapping in a scalar", "name: x\nparts:\n  - sku: A: B\n", want{line: 3, has: []string{"YAML syntax", "mapping values are not allowed"}}},
		{"over-indented key", "name: x\nparts:\n  - sku: A\n     capacity: 1GiB\n", want{line: 4, has: []string{"YAML syntax"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f file
			_, err := yamlx.Decode("in.yaml", []byte(tt.yaml), &f)
			checkInputError(t, "in.yaml", err, tt.want)
		})
	}
}

// Every unknown field is reported, each on its own line, not just the first.
func TestDecodeAllUnknownFields(t *testing.T) {
	var f file
	_, err := yamlx.Decode("u.yaml", []byte("name: x\nparts:\n  - sku: A\n    sped: 1\n  - sku: B\n    sped: 2\n"), &f)
	if err == nil || !errors.Is(err, yamlx.ErrInput) {
		t.Fatalf("err = %v", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "u.yaml:4: field parts[0].sped: unknown field") || !strings.HasPrefix(lines[1], "u.yaml:6: field parts[1].sped: unknown field") {
		t.Errorf("got %q", err.Error())
	}
}

// A mapping where a list is expected (or a list where the document's
// mapping is expected) gets yaml.v3's raw text: "cannot unmarshal !!map into
// []yamlx_test.part". The pattern in yamlx expects a value between "!!map"
// and "into", which yaml.v3 leaves out for collections (no double space), so
// the Go type leaks and "expected a list" is never said.
func TestDecodeCollectionKindMismatch(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want want
	}{
		{"mapping for a list", "name: x\nparts:\n  sku: A\n",
			want{line: 3, field: "parts", has: []string{"got a mapping", "expected a list"}}},
		{"list for a mapping", "name: x\nlimits:\n  - 1\n",
			want{line: 3, field: "limits", has: []string{"got a list", "expected a mapping"}}},
		{"list for the document", "- a\n- b\n",
			want{line: 1, has: []string{"got a list", "expected a mapping"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f file
			_, err := yamlx.Decode("in.yaml", []byte(tt.yaml), &f)
			checkInputError(t, "in.yaml", err, tt.want)
		})
	}
}

// A key with a space in it ("drive bays" for drive_bays) is a likely typo,
// but notFoundRe only matches `field (\S+) not found`, so the raw yaml.v3
// text with the Go type name comes through instead of "unknown field".
func TestDecodeUnknownFieldWithSpace(t *testing.T) {
	var f file
	_, err := yamlx.Decode("in.yaml", []byte("name: x\nparts:\n  - sku: A\n    spe ed: 1\n"), &f)
	checkInputError(t, "in.yaml", err, want{line: 4, field: "parts[0].spe ed", has: []string{"unknown field"}})
	if err != nil && strings.Contains(err.Error(), "yamlx_test.part") {
		t.Errorf("Go type name in %q", err)
	}
}

// A type error on the first key of a mapping (or anywhere in a one-line
// flow mapping) is attributed to the enclosing mapping or list: lookup()
// takes the first value node recorded on that line, and the parent's node
// starts on the same line as its first key.
func TestDecodeTypeErrorFieldOnSharedLine(t *testing.T) {
	for _, tt := range []struct {
		name, yaml, field string
		line              int
	}{
		{"first key of a list item", "name: x\nparts:\n  - speed: fast\n    sku: A\n", "parts[0].speed", 3},
		{"flow mapping", "name: x\nparts:\n  - {sku: A, speed: fast}\n", "parts[0].speed", 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var f file
			_, err := yamlx.Decode("in.yaml", []byte(tt.yaml), &f)
			checkInputError(t, "in.yaml", err, want{line: tt.line, field: tt.field, has: []string{`got text "fast"`}})
		})
	}
}

// yaml.v3 reports a parser error at the line before the enclosing block
// (its 0-based context mark), not where the problem is, and drops the line
// altogether when that is line 1. A mis-indented line 6 is reported at
// line 2 (`parts:`); a tab on line 1 has no line at all.
func TestDecodeSyntaxErrorLine(t *testing.T) {
	for _, tt := range []struct {
		name string
		yaml string
		line int
	}{
		{"dedented key in a list item", "name: x\nparts:\n  - sku: A\n    capacity: 1GiB\n    price: 1 USD\n  price: 2 USD\n", 6},
		{"unclosed flow mapping", "name: x\nparts:\n  - sku: A\n    price: {1 USD\n  - sku: B\n", 4},
		{"tab indentation", "name: x\nparts:\n  - sku: A\n\tcapacity: 1GiB\n", 4},
		{"tab on line 1", "\tname: x\n", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var f file
			_, err := yamlx.Decode("in.yaml", []byte(tt.yaml), &f)
			var ie *yamlx.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("err = %v", err)
			}
			if ie.Line != tt.line {
				t.Errorf("line %d, want %d: %v", ie.Line, tt.line, err)
			}
		})
	}
}

func TestErrorf(t *testing.T) {
	var f file
	doc, err := yamlx.Decode("e.yaml", []byte(good), &f)
	if err != nil {
		t.Fatal(err)
	}
	e := doc.Errorf("parts[1].price", "prices must be positive", "got %s, expected a price above zero", "0.00 USD")
	if got, want := e.Error(), "e.yaml:9:12: field parts[1].price: got 0.00 USD, expected a price above zero (prices must be positive)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if !errors.Is(e, yamlx.ErrInput) {
		t.Error("Errorf result is not ErrInput")
	}
	// A field left out of the file borrows the line of its nearest
	// enclosing field.
	e = doc.Errorf("parts[0].latency", "", "missing or zero")
	if e.Line != 4 || e.Field != "parts[0].latency" {
		t.Errorf("missing field: %v (line %d)", e, e.Line)
	}
	// A top-level field that is absent has no line: the file as a whole
	// is at fault.
	if e := doc.Errorf("sub.x", "", "missing"); e.Line != 0 || e.Error() != "e.yaml: field sub.x: missing" {
		t.Errorf("absent parent: %q", e.Error())
	}
	if e := doc.Errorf("", "", "catalog is empty"); e.Line != 2 || e.Error() != "e.yaml:2:1: catalog is empty" {
		t.Errorf("root error: %q", e.Error())
	}
}

func TestInputErrorFormat(t *testing.T) {
	for _, tt := range []struct {
		e    yamlx.InputError
		want string
	}{
		{yamlx.InputError{File: "f.yaml", Msg: "file is empty"}, "f.yaml: file is empty"},
		{yamlx.InputError{File: "f.yaml", Line: 7, Msg: "bad"}, "f.yaml:7: bad"},
		{yamlx.InputError{File: "f.yaml", Line: 7, Column: 3, Field: "dimms[1].price", Msg: "got 0", Hint: "fix it"}, "f.yaml:7:3: field dimms[1].price: got 0 (fix it)"},
		{yamlx.InputError{File: "f.yaml", Column: 3, Msg: "no line"}, "f.yaml: no line"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
	wrapped := fmt.Errorf("loading: %w", &yamlx.InputError{File: "f", Msg: "m"})
	if !errors.Is(wrapped, yamlx.ErrInput) {
		t.Error("wrapped InputError does not match ErrInput")
	}
	if errors.Is(errors.New("other"), yamlx.ErrInput) {
		t.Error("plain error matches ErrInput")
	}
}

// Aliases and anchors are YAML; they work, and an alias to an undefined
// anchor is a syntax error, not a panic.
func TestDecodeAnchors(t *testing.T) {
	var f file
	src := "name: x\nparts:\n  - &a\n    sku: A\n    capacity: 1GiB\n    price: 1 USD\n  - sku: B\n    capacity: 2GiB\n    price: 1 USD\n"
	if _, err := yamlx.Decode("a.yaml", []byte(src), &f); err != nil {
		t.Fatal(err)
	}
	// A whole number written with a zero fraction is still one.
	if _, err := yamlx.Decode("a.yaml", []byte("name: x\nparts:\n  - sku: A\n    speed: 5600.0\n"), &f); err != nil || f.Parts[0].Speed != 5600 {
		t.Fatalf("speed: 5600.0: %v, %+v", err, f.Parts)
	}
	_, err := yamlx.Decode("a.yaml", []byte("name: *nope\n"), &f)
	checkInputError(t, "a.yaml", err, want{line: 1, has: []string{"YAML syntax", "unknown anchor"}})
}

func TestKind(t *testing.T) {
	for src, want := range map[string]string{
		"name: c\ncurrency: USD\ndimms: []\n":              yamlx.KindCatalog,
		"name: w\njobs: []\n":                              yamlx.KindWorkload,
		"{\"name\": \"f\", \"curves\": []}":                yamlx.KindFactors,
		"date: 2026-03-01\nrates: {EUR: 1.08 USD}\n":       yamlx.KindRates,
		"name: c\ncurrency: EUR\nrates: {EUR: 1.08 USD}\n": "",
		"- a\n- b\n": "",
		"name: [":    "",
	} {
		if got := yamlx.Kind([]byte(src)); got != want {
			t.Errorf("Kind(%q) = %q, want %q", src, got, want)
		}
	}
	if err := yamlx.WrongKind("w.yaml", []byte("name: w\njobs: []\n"), yamlx.KindCatalog); err == nil || err.Error() != "w.yaml: this is a workload, not a price catalog (give the workload with -w/--workload)" {
		t.Errorf("WrongKind = %v", err)
	}
	if err := yamlx.WrongKind("w.yaml", []byte("name: w\njobs: []\n"), yamlx.KindWorkload); err != nil {
		t.Errorf("WrongKind of the right kind = %v", err)
	}
}
