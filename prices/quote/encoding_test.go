package quote

import (
	"encoding/binary"
	"testing"
	"unicode/utf16"
)

func utf16Bytes(s string, order binary.AppendByteOrder, bom bool) []byte {
	var b []byte
	if bom {
		b = order.AppendUint16(b, 0xfeff)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = order.AppendUint16(b, u)
	}
	return b
}

func TestReadCSVUTF16(t *testing.T) {
	want, err := ReadCSV("angebot.csv", []byte(europeanCSV))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		order binary.AppendByteOrder
		bom   bool
		enc   string
	}{
		{"LE with BOM", binary.LittleEndian, true, "UTF-16LE (byte-order mark)"},
		{"BE with BOM", binary.BigEndian, true, "UTF-16BE (byte-order mark)"},
		{"LE without BOM", binary.LittleEndian, false, "UTF-16LE (no byte-order mark; recognised by its zero bytes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wb, err := ReadCSV("angebot.csv", utf16Bytes(europeanCSV, tc.order, tc.bom))
			if err != nil {
				t.Fatal(err)
			}
			got := wb.Sheets[0]
			if got.Encoding != tc.enc {
				t.Errorf("encoding %q, want %q", got.Encoding, tc.enc)
			}
			if len(got.Text) != len(want.Sheets[0].Text) || got.cell(5, 4) != "1.234,56 €" {
				t.Errorf("read %d rows, D5 %q; want %d rows as in UTF-8", len(got.Text), got.cell(5, 4), len(want.Sheets[0].Text))
			}
			res := mustImport(t, wb, Options{})
			if len(res.Catalog.DIMMs) != 2 || res.Currency != "EUR" || res.Encoding != tc.enc {
				t.Errorf("imported %d DIMMs in %s, encoding %q", len(res.Catalog.DIMMs), res.Currency, res.Encoding)
			}
		})
	}
	_, err = ReadCSV("q.csv", append([]byte("\xff\xfe\x00\x00"), make([]byte, 8)...))
	inputErr(t, err, "q.csv", "UTF-32")
	_, err = ReadCSV("q.csv", []byte("\xff\xfeA\x00B"))
	inputErr(t, err, "q.csv", "UTF-16LE", "odd number of bytes")
}
