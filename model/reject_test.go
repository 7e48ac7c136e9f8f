package model_test

import (
	"strings"
	"testing"

	"github.com/memplan/memplan/model"
)

func TestEveryRejectCodeHasItsOwnWords(t *testing.T) {
	seen := map[string]model.RejectCode{}
	for c := model.RejectDriveDominated; c <= model.RejectUnsupportedFit; c++ {
		s := model.Reject{Code: c, Class: "X"}.String()
		if strings.HasPrefix(s, "reject code") {
			t.Errorf("code %d has no words: %q", c, s)
		}
		if o, ok := seen[s]; ok {
			t.Errorf("codes %d and %d both read %q", o, c, s)
		}
		seen[s] = c
	}
}

func TestRejectClassIsPartOfTheWords(t *testing.T) {
	for _, c := range []model.RejectCode{model.RejectNoCurve, model.RejectNoZramBackend} {
		a, b := model.Reject{Code: c, Class: "hdd"}, model.Reject{Code: c, Class: "lz4"}
		if a == b || a.String() == b.String() || !strings.Contains(a.String(), "hdd") {
			t.Errorf("code %d: %q and %q", c, a, b)
		}
	}
}
