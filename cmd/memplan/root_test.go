package main

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// No flag's help states its default twice (once in words, once as pflag's
// "(default 0B)").
func TestHelpStatesDefaultsOnce(t *testing.T) {
	var walk func(c *cobra.Command)
	checked := 0
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Flags().FlagUsages(), "\n") {
			checked++
			if strings.Count(line, "(default") > 1 {
				t.Errorf("%s: %s", c.CommandPath(), strings.TrimSpace(line))
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCommand(processDeps(io.Discard, io.Discard, nil)))
	if checked < 50 {
		t.Errorf("only %d flag lines checked", checked)
	}
}
