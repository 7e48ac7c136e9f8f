package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExamplesReadmeCommands runs every `$ memplan ...` line of the
// examples README's code blocks, in order, from a directory that has the
// examples as examples/, and checks that each prints (standard output,
// then standard error) exactly the lines that follow it in the block, so
// the page cannot drift from the program.
func TestExamplesReadmeCommands(t *testing.T) {
	const page = "../../examples/README.md"
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	type command struct {
		args []string
		want string
	}
	var cmds []command
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			in = !in
		case in && strings.HasPrefix(line, "$ memplan "):
			cmds = append(cmds, command{args: strings.Fields(strings.TrimPrefix(line, "$ memplan "))})
		case in && len(cmds) > 0:
			cmds[len(cmds)-1].want += line + "\n"
		}
	}
	if len(cmds) < 2 {
		t.Fatalf("%s has %d `$ memplan` commands in code blocks, want the import and the backtest", page, len(cmds))
	}
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(examples, filepath.Join(dir, "examples")); err != nil {
		t.Skipf("no symlink to the examples: %v", err)
	}
	t.Chdir(dir)
	for _, c := range cmds {
		code, stdout, stderr := runMemplan(t, c.args...)
		if code != 0 {
			t.Fatalf("memplan %s: exit %d\n%s", strings.Join(c.args, " "), code, stderr)
		}
		if got := stdout + stderr; got != c.want {
			t.Errorf("memplan %s printed:\n%s\n%s shows:\n%s", strings.Join(c.args, " "), got, page, c.want)
		}
	}
}
