package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// WriteJSON writes out as RenderOutput's "json" format does, byte for
// byte, but a configuration at a time: the list of configurations, which
// is all but the whole of a large search's result (139,607 of them take
// 857 MB on a catalog of 10,000 DIMMs and 2,000 drives), is never held
// encoded in memory. Unlike RenderOutput it may leave part of the
// document in w when writing fails; callers that must not (standard
// output) render into memory instead.
func WriteJSON(w io.Writer, out Output) error {
	cfgs := out.Configurations
	if len(cfgs) == 0 {
		return encodeJSON(w, out, "", "  ") // nothing to stream ([] or null as given)
	}
	// The document without its configurations, as the encoder writes it;
	// the empty list marks where they go.
	out.Configurations = []Configuration{}
	var head bytes.Buffer
	if err := encodeJSON(&head, out, "", "  "); err != nil {
		return err
	}
	const mark = "\n  \"configurations\": []"
	before, after, ok := bytes.Cut(head.Bytes(), []byte(mark))
	if !ok || bytes.Contains(after, []byte(mark)) {
		return fmt.Errorf("rendering json: no single place for the configurations")
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(before)
	bw.WriteString("\n  \"configurations\": [")
	var one bytes.Buffer
	for i := range cfgs {
		one.Reset()
		// Inside the top-level object's list: four spaces in.
		if err := encodeJSON(&one, cfgs[i], "    ", "  "); err != nil {
			return err
		}
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		// A failed write is kept by bw: stop encoding at once.
		if _, err := bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n"))); err != nil {
			return err
		}
	}
	bw.WriteString("\n  ]")
	bw.Write(after)
	return bw.Flush()
}

// encodeJSON is the encoder RenderOutput uses: indented, with "&" and "<"
// left readable (labels and notes are prose).
func encodeJSON(w io.Writer, v any, prefix, indent string) error {
	enc := json.NewEncoder(w)
	enc.SetIndent(prefix, indent)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
