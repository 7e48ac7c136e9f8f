package reports

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteJSONIsTheRenderedDocument: streamed a configuration at a time,
// every golden result is the document RenderOutput writes, byte for byte,
// with its configurations, with none, and with one.
func TestWriteJSONIsTheRenderedDocument(t *testing.T) {
	files, err := filepath.Glob("testdata/golden/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.Contains(f, "crossval") {
			continue // not a result
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ReadOutput(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		n++
		for _, c := range []struct {
			name string
			cfgs []Configuration
		}{{"all", out.Configurations}, {"none", nil}, {"one", out.Configurations[:min(1, len(out.Configurations))]}} {
			o := out
			o.Configurations = c.cfgs
			var want, got bytes.Buffer
			if err := RenderOutput(&want, "json", o); err != nil {
				t.Fatal(err)
			}
			if err := WriteJSON(&got, o); err != nil {
				t.Fatalf("%s, %s configurations: %v", f, c.name, err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s, %s configurations: streamed JSON differs from the rendered document (%d bytes against %d)", f, c.name, got.Len(), want.Len())
			}
		}
	}
	if n < 5 {
		t.Fatalf("only %d golden results to compare", n)
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(p)
	return len(p), nil
}

// TestWriteJSONStopsAtAFailedWrite: a writer that fails is reported, not
// written past.
func TestWriteJSONStopsAtAFailedWrite(t *testing.T) {
	data, err := os.ReadFile("testdata/golden/eda.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := ReadOutput(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&failAfter{n: 1000}, out); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("writing into a failing writer: got %v, want its error", err)
	}
}
