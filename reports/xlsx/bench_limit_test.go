package xlsx

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/xuri/excelize/v2"
)

// BenchmarkWrite10kStreamLimit is the limit BenchmarkWrite10k is read
// against (bench/speed.sh): excelize's streaming writer writing the same
// cells, sheet by sheet, with no styles, formulas, tables, charts or print
// settings. The cells are read back from one workbook Write made, outside
// the timer as text (formulas as their cached values).
func BenchmarkWrite10kStreamLimit(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "src.xlsx")
	if err := Write(src, synthOutput(10000), Options{}); err != nil {
		b.Fatal(err)
	}
	f, err := excelize.OpenFile(src)
	if err != nil {
		b.Fatal(err)
	}
	type sheet struct {
		name string
		rows [][]any
	}
	var sheets []sheet
	cells := 0
	for _, name := range f.GetSheetList() {
		rows, err := f.GetRows(name)
		if err != nil {
			b.Fatal(err)
		}
		s := sheet{name: name}
		for _, r := range rows {
			row := make([]any, len(r))
			for i, v := range r {
				row[i] = v
			}
			cells += len(r)
			s.rows = append(s.rows, row)
		}
		sheets = append(sheets, s)
	}
	f.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		out := excelize.NewFile()
		for k, s := range sheets {
			name := s.name
			if k == 0 {
				if err := out.SetSheetName("Sheet1", name); err != nil {
					b.Fatal(err)
				}
			} else if _, err := out.NewSheet(name); err != nil {
				b.Fatal(err)
			}
			sw, err := out.NewStreamWriter(name)
			if err != nil {
				b.Fatal(err)
			}
			for r, row := range s.rows {
				if err := sw.SetRow(fmt.Sprintf("A%d", r+1), row); err != nil {
					b.Fatal(err)
				}
			}
			if err := sw.Flush(); err != nil {
				b.Fatal(err)
			}
		}
		if err := out.SaveAs(filepath.Join(dir, fmt.Sprintf("limit-%d.xlsx", i))); err != nil {
			b.Fatal(err)
		}
		out.Close()
	}
	b.StopTimer()
	b.ReportMetric(float64(cells), "cells/op")
}
