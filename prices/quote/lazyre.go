package quote

import (
	"regexp"
	"sync"
)

// lazyRE is a regular expression compiled on its first use. Every memplan
// command links this package, and compiling its forty-odd expressions at
// start cost each process about 2,500 allocations, though most commands
// never read a quote.
type lazyRE struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// lazyREs is every lazyRE, for the test that compiles them all.
var lazyREs []*lazyRE

func lazy(expr string) *lazyRE {
	l := &lazyRE{expr: expr}
	lazyREs = append(lazyREs, l)
	return l
}

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

func (l *lazyRE) MatchString(s string) bool { return l.get().MatchString(s) }

func (l *lazyRE) FindStringSubmatch(s string) []string { return l.get().FindStringSubmatch(s) }

func (l *lazyRE) FindAllStringSubmatch(s string, n int) [][]string {
	return l.get().FindAllStringSubmatch(s, n)
}
