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

// TestPortableDeps walks what the deciding side of memplan reaches, not only
// what it imports directly: the model, the catalogs and the reports never
// reach the kernel (x/sys/unix, go-fuse) or a measuring package, and the
// command built for macOS or Windows reaches no measuring package at all
// (probe and profile are stubs there: cmd/memplan/main_other.go). This is
// what lets a buyer on a Mac build memplan for recommend and report.
func TestPortableDeps(t *testing.T) {
	const mod = "github.com/memplan/memplan/"
	hostOnly := func(dep string) bool {
		return dep == "golang.org/x/sys/unix" || strings.HasPrefix(dep, "github.com/hanwen/go-fuse") ||
			dep == mod+"measure" || strings.HasPrefix(dep, mod+"measure/")
	}
	deps := func(goos, pkg string) []string {
		cmd := exec.Command("go", "list", "-deps", mod+pkg)
		cmd.Env = append(cmd.Environ(), "GOOS="+goos, "GOARCH=amd64")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("GOOS=%s go list -deps %s: %v", goos, pkg, err)
		}
		return strings.Fields(string(out))
	}
	for _, pkg := range []string{"model", "prices", "prices/quote", "reports", "reports/xlsx", "money", "units", "fleet", "factors"} {
		for _, goos := range []string{"linux", "darwin", "windows"} {
			for _, d := range deps(goos, pkg) {
				if hostOnly(d) {
					t.Errorf("GOOS=%s: %s reaches %s: the deciding side must build without the measuring side", goos, pkg, d)
				}
			}
		}
	}
	for _, goos := range []string{"darwin", "windows"} {
		for _, d := range deps(goos, "cmd/memplan") {
			if strings.HasPrefix(d, mod+"measure") || strings.HasPrefix(d, "github.com/hanwen/go-fuse") {
				t.Errorf("GOOS=%s: cmd/memplan reaches %s (Linux-only: put its use behind main_linux.go)", goos, d)
			}
		}
	}
}

// TestFactorsIsALeaf holds the factor file's format (package factors) to
// what a leaf may import: the standard library, units, internal/yamlx,
// internal/inputfile (the reading of named files) and yaml, and to what
// those reach. It also holds the measuring side's host, device and probe
// packages off the deciding side: they once imported the model for
// HostFacts, Reference and the file's types (now factors'), so the
// pipeline's arrows run one way: measure writes factor files, model reads
// them.
func TestFactorsIsALeaf(t *testing.T) {
	const mod = "github.com/memplan/memplan/"
	type pkg struct {
		ImportPath string
		Standard   bool
		Imports    []string
	}
	list := func(args ...string) map[string]pkg {
		out, err := exec.Command("go", append([]string{"list", "-json=ImportPath,Standard,Imports"}, args...)...).Output()
		if err != nil {
			t.Fatalf("go list %v: %v", args, err)
		}
		pkgs := map[string]pkg{}
		dec := json.NewDecoder(strings.NewReader(string(out)))
		for dec.More() {
			var q pkg
			if err := dec.Decode(&q); err != nil {
				t.Fatal(err)
			}
			pkgs[q.ImportPath] = q
		}
		return pkgs
	}
	deps := list("-deps", mod+"factors")
	leaf, ok := deps[mod+"factors"]
	if !ok {
		t.Fatalf("go list -deps factors does not list factors (%d packages)", len(deps))
	}
	for _, imp := range leaf.Imports {
		if deps[imp].Standard || imp == mod+"units" || imp == mod+"internal/yamlx" || imp == mod+"internal/inputfile" || strings.HasPrefix(imp, "gopkg.in/yaml.") {
			continue
		}
		t.Errorf("factors imports %s: a leaf imports only the standard library, units, internal/yamlx, internal/inputfile and yaml", imp)
	}
	// What those reach in turn: a statistics library or a measuring
	// package coming in through units or yamlx would make the leaf heavy
	// all the same.
	reach := map[string]bool{mod + "factors": true, mod + "units": true, mod + "money": true,
		mod + "internal/usage": true, mod + "internal/yamlx": true, mod + "internal/inputfile": true}
	for path, q := range deps {
		if !q.Standard && !reach[path] && !strings.HasPrefix(path, "gopkg.in/yaml.") {
			t.Errorf("factors reaches %s: its dependencies may be the standard library, yaml and %v only", path, reach)
		}
	}
	// The probe writes factor files and reads the price catalogs' drive
	// classes (prices), but names the file's types through factors too.
	off := map[string][]string{
		"measure/host":   {"model", "prices", "reports", "fleet"},
		"measure/device": {"model", "prices", "reports", "fleet"},
		"measure/probe":  {"model", "reports", "fleet"},
	}
	for p, bads := range off {
		for path := range list("-deps", mod+p) {
			for _, bad := range bads {
				if path == mod+bad || strings.HasPrefix(path, mod+bad+"/") {
					t.Errorf("%s reaches %s: the measuring side names the factor file's types through package factors, never the deciding side", p, path)
				}
			}
		}
	}
}
