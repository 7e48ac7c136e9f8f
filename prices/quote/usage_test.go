package quote_test

import (
	"errors"
	"testing"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/prices/quote"
)

// What the caller passes in (a column map, the fill-in figures) is bad
// input when it is wrong, and the message is left as it was.
func TestOptionErrorsAreBadInput(t *testing.T) {
	_, err := quote.ParseMap("sku=B,price")
	if err == nil || !errors.Is(err, usage.ErrInput) || err.Error() != `--map "price": expected key=column pairs such as "sku=B,desc=C,qty=D,price=F"` {
		t.Errorf("ParseMap: %v", err)
	}
	if _, err := quote.ParseMap("sku=B,price=F"); err != nil {
		t.Errorf("ParseMap of a good map: %v", err)
	}
	err = quote.Options{Fill: quote.Fill{NAND: "XLC"}}.Check()
	if err == nil || !errors.Is(err, usage.ErrInput) {
		t.Errorf("Check: %v", err)
	}
	if err := (quote.Options{}).Check(); err != nil {
		t.Errorf("Check of no options: %v", err)
	}
}
