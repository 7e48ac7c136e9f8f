package units_test

import (
	"errors"
	"testing"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/units"
)

// A value that does not parse is bad input, whichever unit it is.
func TestErrorsAreBadInput(t *testing.T) {
	_, e1 := units.ParseDate("soon")
	_, e2 := units.ParseBytes("lots")
	_, e3 := units.ParseDuration("a while")
	for _, err := range []error{e1, e2, e3} {
		if err == nil || !errors.Is(err, usage.ErrInput) {
			t.Errorf("%v does not match usage.ErrInput", err)
		}
	}
}
