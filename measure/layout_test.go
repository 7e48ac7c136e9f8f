package measure_test

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// TestPackageLayout holds the measure packages to the layout docs/README
// describe: only host (with its emulated device, measure/host/emulate) and
// device speak to the kernel through golang.org/x/sys/unix, the probe and the profiler do not import each
// other, and the shared vocabulary (this package) imports none of them.
func TestPackageLayout(t *testing.T) {
	const mod = "github.com/memplan/memplan/"
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		imports[strings.TrimPrefix(p.ImportPath, mod)] = p.Imports
	}
	for _, want := range []string{"measure", "measure/host", "measure/device", "measure/probe", "measure/profile"} {
		if _, ok := imports[want]; !ok {
			t.Fatalf("package %s is missing from go list (got %d packages)", want, len(imports))
		}
	}
	mayUseUnix := func(pkg string) bool {
		// bench/qd1path is a harness whose subject is the ways of calling
		// the kernel (a raw system call against unix.Pread); it is not
		// part of the tool.
		return pkg == "measure/host" || pkg == "measure/device" || strings.HasPrefix(pkg, "measure/host/") || pkg == "bench/qd1path"
	}
	for pkg, imps := range imports {
		for _, imp := range imps {
			if imp == "golang.org/x/sys/unix" && !mayUseUnix(pkg) {
				t.Errorf("%s imports golang.org/x/sys/unix: only measure/host and measure/device may (add what it needs to host)", pkg)
			}
		}
	}
	forbid := map[string][]string{
		"measure/probe":   {"measure/profile"},
		"measure/profile": {"measure/probe"},
		"measure":         {"measure/host", "measure/device", "measure/probe", "measure/profile"},
		"measure/host":    {"measure/device", "measure/probe", "measure/profile"},
		"measure/device":  {"measure/probe", "measure/profile"},
	}
	for pkg, bad := range forbid {
		for _, imp := range imports[pkg] {
			for _, b := range bad {
				if imp == mod+b {
					t.Errorf("%s imports %s", pkg, b)
				}
			}
		}
	}
}
