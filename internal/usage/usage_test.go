package usage_test

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/memplan/memplan/internal/usage"
)

func TestKind(t *testing.T) {
	base := errors.New("--map x: expected key=column pairs")
	for _, c := range []struct {
		err  error
		msg  string
		bad  bool
		want error // also matched through the wrapping
	}{
		{usage.Errorf("--top %d: expected 0 or more", -1), "--top -1: expected 0 or more", true, nil},
		{usage.Wrap(base), base.Error(), true, base},
		{fmt.Errorf("reading w.yaml: %w", usage.Wrap(base)), "reading w.yaml: " + base.Error(), true, base},
		{fmt.Errorf("%w: no embedded catalog", usage.ErrInput), "invalid input: no embedded catalog", true, nil},
		{usage.Errorf("open: %w", fs.ErrNotExist), "open: file does not exist", true, fs.ErrNotExist},
		{base, base.Error(), false, nil},
	} {
		if got := c.err.Error(); got != c.msg {
			t.Errorf("message %q, want %q", got, c.msg)
		}
		if got := errors.Is(c.err, usage.ErrInput); got != c.bad {
			t.Errorf("%q: errors.Is(ErrInput) = %v, want %v", c.msg, got, c.bad)
		}
		if c.want != nil && !errors.Is(c.err, c.want) {
			t.Errorf("%q no longer matches %v", c.msg, c.want)
		}
	}
	if usage.Wrap(nil) != nil {
		t.Error("Wrap(nil) is not nil")
	}
}
