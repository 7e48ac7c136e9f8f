package quote

import (
	"regexp"
	"testing"
)

// The expressions compile on first use: each must compile, or a quote
// that reaches it would panic mid-import.
func TestLazyExpressionsAllCompile(t *testing.T) {
	if len(lazyREs) < 40 {
		t.Fatalf("%d lazy expressions registered, want the 40 or more the package declares", len(lazyREs))
	}
	for _, l := range lazyREs {
		if _, err := regexp.Compile(l.expr); err != nil {
			t.Errorf("%q: %v", l.expr, err)
		}
	}
}

func TestLazyExpressionMatchesAsCompiled(t *testing.T) {
	l := lazy(`\b(\d{1,2})\s*X\s*(\d+)GB\b`)
	defer func() { lazyREs = lazyREs[:len(lazyREs)-1] }()
	if !l.MatchString("16 X 64GB RDIMM") || l.MatchString("64GB RDIMM") {
		t.Errorf("MatchString disagrees with the expression")
	}
	if got := l.FindStringSubmatch("16 X 64GB"); len(got) != 3 || got[1] != "16" || got[2] != "64" {
		t.Errorf("FindStringSubmatch = %q, want [16 X 64GB 16 64]", got)
	}
	if got := l.FindAllStringSubmatch("2 X 8GB, 4 X 16GB", -1); len(got) != 2 || got[1][2] != "16" {
		t.Errorf("FindAllStringSubmatch = %q", got)
	}
}
