// Package testinput writes the inputs the one-pass comparisons run real
// programs on (cmd/memplan's TestProfileRealPrograms and bench/onepass):
// random text lines for GNU sort and a generated C file for gcc. Both are
// deterministic, so a measurement can be repeated on the same input.
package testinput

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
)

// Lines writes at least size bytes of random lines of 20-80 letters and
// digits to a new file name.
func Lines(name string, size int) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	line := make([]byte, 0, 96)
	for n := 0; n < size; {
		line = line[:0]
		for k := 20 + rng.IntN(61); k > 0; k-- {
			line = append(line, alphabet[rng.IntN(len(alphabet))])
		}
		line = append(line, '\n')
		w.Write(line)
		n += len(line)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// C writes a C file of n functions of 20 multiply-xor-shift steps each and
// a main calling them through a table: about 1.6 s and 30 MiB of gcc -O2
// per hundred functions here. It needs no headers, so gcc alone compiles
// it (no libc development files).
func C(name string, n int) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	rng := rand.New(rand.NewPCG(1, 1))
	fmt.Fprint(w, "typedef unsigned long long uint64_t;\n")
	for i := range n {
		fmt.Fprintf(w, "uint64_t f%d(uint64_t x){\n", i)
		for range 20 {
			fmt.Fprintf(w, "  x = (x * %du) ^ (x >> %d);\n", 3+rng.IntN(1<<30-3), 1+rng.IntN(62))
			fmt.Fprintf(w, "  if (x & %du) x += %d;\n", uint64(1)<<rng.IntN(60), 1+rng.IntN(999))
		}
		fmt.Fprint(w, "  return x;\n}\n")
	}
	fmt.Fprint(w, "uint64_t (*tab[])(uint64_t)={")
	for i := range n {
		if i > 0 {
			fmt.Fprint(w, ",")
		}
		fmt.Fprintf(w, "f%d", i)
	}
	fmt.Fprintf(w, "};\nint main(int c,char**v){uint64_t s=c;for(int i=0;i<%d;i++)s=tab[i](s);return (int)s;}\n", n)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
