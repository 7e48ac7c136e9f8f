package factors

import (
	"context"
	"fmt"

	"github.com/memplan/memplan/internal/inputfile"
)

// Load reads the factor file at path ("-": standard input) as memplan
// reads every file a person names (internal/inputfile: regular files
// only, at most inputfile.Limit bytes, a read that cancelling ctx stops)
// and parses it with d (Parse).
func Load(ctx context.Context, path string, d Defaults) (*File, error) {
	data, err := inputfile.Read(ctx, path, inputfile.Limit)
	if err != nil {
		return nil, fmt.Errorf("reading factors: %w", err)
	}
	return Parse(inputfile.Name(path), data, d)
}
