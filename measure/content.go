package measure

// Access patterns and data contents.
const (
	PatternUniform    = "uniform"
	PatternZipf       = "zipf"
	PatternSequential = "sequential"

	ContentZeros        = "zeros"
	ContentCompressible = "compressible"
	ContentRandom       = "random"
)

var (
	Patterns = []string{PatternUniform, PatternZipf, PatternSequential}
	Contents = []string{ContentZeros, ContentCompressible, ContentRandom}
)

// fillPage gives one page its content: zeros; random (incompressible); or
// compressible, a third random and the rest one repeated word, which lz4
// and lzo shrink about threefold.
func FillPage(pg []uint64, content string, p int64, x *uint64) {
	switch content {
	case ContentZeros:
		clear(pg)
	case ContentRandom:
		for i := range pg {
			*x = Xorshift(*x)
			pg[i] = *x
		}
	default:
		third := len(pg) / 3
		for i := 0; i < third; i++ {
			*x = Xorshift(*x)
			pg[i] = *x
		}
		w := uint64(p)*0x0101010101010101 ^ 0x2020202020202020
		for i := third; i < len(pg); i++ {
			pg[i] = w
		}
	}
}

func Xorshift(x uint64) uint64 {
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	return x
}
