package reports

import "testing"

// TestMarkdownLeavesCodeSpansAlone: prose is escaped, a `code span` is
// not (Markdown would show the backslash).
func TestMarkdownLeavesCodeSpansAlone(t *testing.T) {
	for in, want := range map[string]string{
		"set `options.mirror_swap: true` for max_swap_drives": "set `options.mirror_swap: true` for max\\_swap\\_drives",
		"a lone ` and a_b":     "a lone ` and a\\_b",
		"`a_b` and `c*d`, e*f": "`a_b` and `c*d`, e\\*f",
	} {
		if got := mdText(in); got != want {
			t.Errorf("mdText(%q) = %q, want %q", in, got, want)
		}
	}
}
