package testinput

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestDeterministic: the same call writes the same bytes (a measurement
// is repeated on the same input), of the promised shape.
func TestDeterministic(t *testing.T) {
	dir := t.TempDir()
	sum := func(name string) string {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", sha256.Sum256(b))
	}
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	for _, n := range []string{a, b} {
		if err := Lines(n, 1<<20); err != nil {
			t.Fatal(err)
		}
	}
	if sum(a) != sum(b) {
		t.Error("two calls of Lines wrote different files")
	}
	data, _ := os.ReadFile(a)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(data) < 1<<20 || len(data) > 1<<20+81 {
		t.Errorf("Lines wrote %d bytes for 1 MiB", len(data))
	}
	for i, l := range lines {
		if len(l) < 20 || len(l) > 80 {
			t.Fatalf("line %d has %d characters, want 20-80", i+1, len(l))
		}
	}
	c1, c2 := filepath.Join(dir, "a.c"), filepath.Join(dir, "b.c")
	for _, n := range []string{c1, c2} {
		if err := C(n, 3); err != nil {
			t.Fatal(err)
		}
	}
	if sum(c1) != sum(c2) {
		t.Error("two calls of C wrote different files")
	}
	src, _ := os.ReadFile(c1)
	if !bytes.Contains(src, []byte("uint64_t f2(uint64_t x){")) || bytes.Contains(src, []byte("f3(")) || !bytes.Contains(src, []byte("={f0,f1,f2};")) {
		t.Errorf("C(3) wrote:\n%s", src)
	}
	if err := Lines(filepath.Join(dir, "no", "such", "dir"), 10); err == nil {
		t.Error("Lines into a missing directory succeeded")
	}
}
