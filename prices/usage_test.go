package prices_test

import (
	"errors"
	"testing"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/prices"
)

// Naming a catalog or a rate that cannot be is bad input.
func TestBadInputIsUsage(t *testing.T) {
	_, err := prices.Embedded("no-such-catalog")
	if err == nil || !errors.Is(err, usage.ErrInput) {
		t.Errorf("Embedded: %v", err)
	}
	_, err = prices.Parse("bad.yaml", []byte("name: x\ncurrency: [\n"))
	if err == nil || !errors.Is(err, usage.ErrInput) {
		t.Errorf("Parse: %v", err)
	}
}
