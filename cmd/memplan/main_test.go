package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/xuri/excelize/v2"
)

func TestMain(m *testing.M) {
	testscript.Main(removesStatic{m}, map[string]func(){
		"memplan": func() {
			if handled, code := maybeHelper(); handled {
				os.Exit(code)
			}
			os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
		},
	})
}

// removesStatic runs the tests, then removes the static memplan some of
// them built (staticMemplan), which outlives any one test.
type removesStatic struct{ m *testing.M }

func (r removesStatic) Run() int {
	code := r.m.Run()
	if static.dir != "" {
		os.RemoveAll(static.dir)
	}
	return code
}

// TestScripts runs the end-to-end scripts in testdata/script against the
// real command. $EXAMPLES points at the repository's examples, $PROBE at a
// factor file memplan probe recorded (see reports/xlsx's tests), $HISTORY
// at the synthetic sacct history docs/import-workload.md's example uses.
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	probe, err := filepath.Abs("../../reports/xlsx/testdata/probe-quick-vm.json")
	if err != nil {
		t.Fatal(err)
	}
	history, err := filepath.Abs("../../workload/backtest/testdata/history.txt")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("PROBE", probe)
			env.Setenv("HISTORY", history)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"xlsx-row": xlsxRow},
	})
}

// xlsxRow prints the cells of the first row of a workbook's sheet whose
// column A reads LABEL, tab-separated, as a viewer that does not
// calculate shows them (formulas by their cached values):
// xlsx-row FILE SHEET LABEL.
func xlsxRow(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 3 {
		ts.Fatalf("usage: xlsx-row FILE SHEET LABEL")
	}
	f, err := excelize.OpenFile(ts.MkAbs(args[0]))
	ts.Check(err)
	defer f.Close()
	rows, err := f.GetRows(args[1])
	ts.Check(err)
	for _, r := range rows {
		if len(r) > 0 && r[0] == args[2] {
			if neg {
				ts.Fatalf("%s!%s: found row %q", args[0], args[1], args[2])
			}
			fmt.Fprintln(ts.Stdout(), strings.Join(r, "\t"))
			return
		}
	}
	if !neg {
		ts.Fatalf("%s!%s: no row whose column A reads %q", args[0], args[1], args[2])
	}
}
