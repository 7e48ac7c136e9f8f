//go:build linux

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/measure/device"
)

func runProbeDeviceCmd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errb bytes.Buffer
	c := newProbeDeviceCommand(processDeps(&out, &errb, nil))
	c.SetArgs(args)
	c.SetOut(&errb)
	c.SetErr(&errb)
	err = c.ExecuteContext(context.Background())
	return out.String(), errb.String(), err
}

func TestProbeDeviceTable(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the device profile runs on Linux only")
	}
	dir := t.TempDir()
	out, errs, err := runProbeDeviceCmd(t, "--path", dir, "--size", "16MiB", "--duration", "100ms")
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	for _, want := range []string{"Device profile of", "rand read 4KiB", "rand write 4KiB", "seq write 1MiB", "p99.9", "For the model"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 80 {
			t.Errorf("line wider than 80 columns: %q", l)
		}
	}
	if !strings.Contains(errs, "[1/7] fill") || !strings.Contains(errs, "[7/7] seq-write-1m-qd1") {
		t.Errorf("progress on stderr:\n%s", errs)
	}
}

func TestProbeDeviceJSONOut(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the device profile runs on Linux only")
	}
	dir := t.TempDir()
	file := filepath.Join(t.TempDir(), "device.json")
	out, errs, err := runProbeDeviceCmd(t, "--path", dir, "--quick", "--size", "16MiB", "--duration", "100ms", "--format", "json", "--out", file)
	if err != nil {
		t.Fatalf("%v\n%s", err, errs)
	}
	if out != "" {
		t.Errorf("stdout should be empty with --out, got %q", out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var p device.Profile
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	if p.RandReadQD32.IOPS <= 0 || p.FileSize.String() != "16MiB" || p.DurationPerTest.String() != "100ms" {
		t.Errorf("profile: %s", b)
	}
	if _, _, err := runProbeDeviceCmd(t, "--path", dir, "--format", "json", "--out", file); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Errorf("existing --out: got %v, want a hint at --force", err)
	}
}

func TestProbeDeviceErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		args  []string
		want  string
		usage bool
	}{
		{[]string{"--path", missing}, missing + " does not exist", true},
		{[]string{"--path", file}, file + " is not a directory", true},
		{[]string{"--path", dir, "--size", "1PiB"}, "not enough free space in " + dir, true},
		{[]string{"--path", dir, "--format", "xml"}, `unknown --format "xml"`, true},
		{[]string{"--path", dir, "--duration", "10ms"}, "too short", true},
		{[]string{"--path", dir, "--size", "lots"}, "lots", false},
		{[]string{"--path", dir, "--tests", "rand-read-4k-qd1,nope"}, `unknown test "nope"`, true},
		{[]string{"--path", dir, "--size", "4MiB"}, "too small", true},
		{[]string{}, "path", false},
	} {
		_, _, err := runProbeDeviceCmd(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error containing %q", c.args, err, c.want)
			continue
		}
		if c.usage && !errors.Is(err, usage.ErrInput) {
			t.Errorf("%v: %v is not a usage error (exit 2)", c.args, err)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(dir, device.TempPattern)); len(m) != 0 {
		t.Errorf("test file left behind: %v", m)
	}
}

// --out device.json writes JSON without --format, as probe --out does;
// an explicit --format table still wins, and another name gets the table.
func TestProbeDeviceOutFormatFromTheName(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the device profile runs on Linux only")
	}
	dir, outDir := t.TempDir(), t.TempDir()
	run := func(name string, extra ...string) string {
		t.Helper()
		file := filepath.Join(outDir, name)
		args := append([]string{"--path", dir, "--size", "16MiB", "--duration", "100ms", "--out", file}, extra...)
		if _, errs, err := runProbeDeviceCmd(t, args...); err != nil {
			t.Fatalf("%v\n%s", err, errs)
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var p device.Profile
	if got := run("device.json"); json.Unmarshal([]byte(got), &p) != nil || p.RandReadQD32.IOPS <= 0 {
		t.Errorf("--out device.json without --format: not the JSON profile:\n%.200s", got)
	}
	if got := run("table.JSON", "--format", "table"); !strings.Contains(got, "Device profile of") {
		t.Errorf("--format table --out table.JSON: not the table:\n%.200s", got)
	}
	if got := run("device.txt"); !strings.Contains(got, "Device profile of") {
		t.Errorf("--out device.txt: not the table:\n%.200s", got)
	}
}
