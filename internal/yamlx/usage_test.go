package yamlx_test

import (
	"errors"
	"testing"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/internal/yamlx"
)

// yamlx's input errors are the one bad-input kind of every package.
func TestInputErrorIsUsage(t *testing.T) {
	var err error = &yamlx.InputError{File: "w.yaml", Line: 3, Field: "jobs[0].memory", Msg: "missing"}
	if !errors.Is(err, usage.ErrInput) || !errors.Is(err, yamlx.ErrInput) {
		t.Errorf("%v does not match usage.ErrInput", err)
	}
}
