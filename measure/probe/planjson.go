//go:build linux

package probe

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// UnmarshalJSON reads a plan in either spelling: the snake_case keys of
// the json tags, or the Go field names that plans recorded before the tags
// were written with (DeviceClass, SwapFileSize, Options.PageCacheSizes,
// Stages[].Emulation.RIOPS, ...). encoding/json would match the old
// one-word keys case-insensitively but not the multi-word ones, so the old
// keys are renamed to the tagged ones before decoding.
func (p *Plan) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // keep uint64 seeds and int64 sizes exact
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	renameGoKeys(v, reflect.TypeFor[Plan]())
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	type plain Plan // without this method
	return json.Unmarshal(b, (*plain)(p))
}

// renameGoKeys walks v, a decoded JSON value of Go type t, and renames every
// object key that is exactly a field's Go name to the field's json key.
func renameGoKeys(v any, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch v := v.(type) {
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for _, e := range v {
				renameGoKeys(e, t.Elem())
			}
		}
	case map[string]any:
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if key == "-" {
				continue
			}
			if key == "" {
				key = f.Name
			}
			if old, ok := v[f.Name]; ok && key != f.Name {
				if _, clash := v[key]; !clash {
					v[key] = old
				}
				delete(v, f.Name)
			}
			if e, ok := v[key]; ok {
				renameGoKeys(e, f.Type)
			}
		}
	}
}
