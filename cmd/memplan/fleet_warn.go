package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/memplan/memplan/factors"
)

// warnSameClass warns when several --factors files carry a curve of the
// same class: the model keeps only the last, which quietly throws away the
// other hosts' measurements. Pooling hosts is what `factors merge` does.
func warnSameClass(w io.Writer, files []*factors.File) {
	if w == nil {
		return
	}
	byClass := map[string][]string{}
	var order []string
	for _, f := range files {
		for _, c := range f.Curves {
			if len(byClass[c.Class]) == 0 {
				order = append(order, c.Class)
			}
			byClass[c.Class] = append(byClass[c.Class], f.File)
		}
	}
	var all []string
	seen := map[string]bool{}
	for _, class := range order {
		fs := byClass[class]
		if len(fs) < 2 {
			continue
		}
		fmt.Fprintf(w, "memplan: warning: curve %s is in %d --factors files (%s); only the last, %s, is used\n",
			class, len(fs), strings.Join(fs, ", "), fs[len(fs)-1])
		for _, f := range fs {
			if !seen[f] {
				seen[f] = true
				all = append(all, f)
			}
		}
	}
	if len(all) > 0 {
		fmt.Fprintf(w, "memplan: to pool hosts of one hardware class, merge their files and pass the result:\n  memplan factors merge --by class %s --out merged/\n", strings.Join(all, " "))
	}
}
