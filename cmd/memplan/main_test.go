package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"memplan": func() {
			if handled, code := maybeHelper(); handled {
				os.Exit(code)
			}
			os.Exit(run(os.Stdout, os.Stderr, os.Args[1:]))
		},
	})
}

// TestScripts runs the end-to-end scripts in testdata/script against the
// real command. $EXAMPLES points at the repository's examples.
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			return nil
		},
	})
}
