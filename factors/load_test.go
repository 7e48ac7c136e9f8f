package factors

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadParsesWithTheReadersDefaults checks that Load names the file
// by its path and fills what it leaves out from the Defaults passed in.
func TestLoadParsesWithTheReadersDefaults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lab.yaml")
	if err := os.WriteFile(path, []byte(lab), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(context.Background(), path, fixed)
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Curves[0].Points[1]; f.File != path || p.Slowdown != 1.5 {
		t.Errorf("File %q, point from samples %g: want %q and 1.5 from the reader's Mean", f.File, p.Slowdown, path)
	}
}

// TestLoadErrors: a bad value names the file's path, line and field; a
// file that cannot be read says it was the factors being read; a
// cancelled read stops with the context's error.
func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(lab, "fit: 0.75", "fit: 1.75", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(context.Background(), bad, fixed)
	if want := bad + ":13:14: field curves[0].points[1].fit: got 1.75 (usable RAM / memory touched, between 0 and 1)"; err == nil || err.Error() != want {
		t.Errorf("bad fit: %v\nwant %s", err, want)
	}
	missing := filepath.Join(dir, "missing.yaml")
	_, err = Load(context.Background(), missing, fixed)
	if err == nil || !strings.HasPrefix(err.Error(), "reading factors: ") || !strings.Contains(err.Error(), missing) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want reading factors: naming %s, not exist", err, missing)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, bad, fixed); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled read: %v, want context.Canceled", err)
	}
}
