package yamlx

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNodeAtFindsWhatTheIndexRecords walks to every path the index
// records, in the workloads, catalogs, factor files and reports the
// project ships or writes, and in a document built to trip the walk (keys
// holding dots and brackets, nested lists, an empty value, an alias):
// Line before an error has indexed the file gives the line the index
// would.
func TestNodeAtFindsWhatTheIndexRecords(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.yaml")
	for _, g := range []string{"../../prices/catalogs/*.yaml", "../../factors/testdata/encode/*.yaml", "../../reports/testdata/golden/*.yaml"} {
		more, _ := filepath.Glob(g)
		files = append(files, more...)
	}
	files = append(files, "../../model/defaults/factors.yaml")
	docs := map[string][]byte{
		"tricky.yaml": []byte(`a: 1
a.b:
  c: 2
x:
  - [1, [2, 3]]
  - k: v
    "y[0]": w
empty:
base: &b
  q: 1
ref: *b
`),
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = data
	}
	if len(docs) < 5 {
		t.Fatalf("%d files to read: the globs found too few", len(docs))
	}
	paths := 0
	for name, data := range docs {
		var v any
		d, err := Decode(name, data, &v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d.ensureIndex()
		for p, at := range d.paths {
			n := nodeAt(d.root, "", p)
			if n == nil {
				t.Errorf("%s: %q (line %d): the walk finds nothing", name, p, at.line)
				continue
			}
			if n.Line != at.line || n.Column != at.col {
				t.Errorf("%s: %q: the walk finds line %d column %d, the index %d:%d", name, p, n.Line, n.Column, at.line, at.col)
			}
			paths++
		}
		for _, p := range []string{"no.such.key", "x[9]", "x[01]", "x[-1]", "a.b.c.d", "[0]"} {
			if n := nodeAt(d.root, "", p); n != nil {
				if _, ok := d.paths[p]; !ok {
					t.Errorf("%s: %q is not in the index, but the walk finds line %d", name, p, n.Line)
				}
			}
		}
	}
	// Keys that are empty or begin with a bracket: the index writes a
	// top-level empty key's children without a prefix, and a mapping's
	// "[0]" key as "a.[0]", never "a[0]".
	for _, c := range []struct{ doc, path string }{
		{"a:\n  \"[0]\": 1\n", "a[0]"},
		{"a:\n  \"[0]\": 1\n", "a.[0]"},
		{"a:\n  \"\":\n    - 1\n", "a[0]"},
		{"a:\n  \"\":\n    - 1\n", "a.[0]"},
		{"\"\":\n  k: 1\n", "k"},
		{"\"\":\n  k: 1\n", ".k"},
	} {
		var v any
		d, err := Decode("keys.yaml", []byte(c.doc), &v)
		if err != nil {
			t.Fatal(err)
		}
		walk := d.Line(c.path)
		d.ensureIndex()
		if idx := d.Line(c.path); walk != idx {
			t.Errorf("%q at %q: the walk gives line %d, the index %d", c.doc, c.path, walk, idx)
		}
	}
	if paths < 1000 {
		t.Fatalf("%d paths checked, want at least 1000", paths)
	}
	t.Logf("%d paths in %d files", paths, len(docs))
}
