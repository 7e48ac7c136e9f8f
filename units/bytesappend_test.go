package units

import (
	"math"
	"strconv"
	"testing"
)

// bytesStringConcat is Bytes.String as it was written before it appended
// into one buffer: the reference the appending version must match.
func bytesStringConcat(b Bytes) string {
	abs := b
	if abs < 0 {
		abs = -abs
	}
	switch {
	case abs >= 1024*TiB:
		return trimFloat(float64(b)/float64(1024*TiB), 2) + "PiB"
	case abs >= TiB && (abs*100)%TiB == 0 || abs >= 10*TiB:
		return trimFloat(float64(b)/float64(TiB), 2) + "TiB"
	case abs >= GiB:
		return trimFloat(float64(b)/float64(GiB), 1) + "GiB"
	case abs >= MiB:
		return trimFloat(float64(b)/float64(MiB), 1) + "MiB"
	case abs >= KiB:
		return trimFloat(float64(b)/float64(KiB), 1) + "KiB"
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}

func TestBytesAppendStringMatchesConcatenation(t *testing.T) {
	var vals []Bytes
	for _, unit := range []Bytes{1, KiB, MiB, GiB, TiB, 1024 * TiB} {
		for _, k := range []Bytes{0, 1, 2, 9, 10, 11, 99, 100, 101, 999, 1000, 1023, 1024, 1025} {
			vals = append(vals, k*unit, k*unit+1, k*unit-1, k*unit+unit/2, k*unit+unit/20, k*unit+unit/100)
		}
	}
	vals = append(vals, math.MaxInt64, math.MinInt64+1, 0)
	for _, v := range vals {
		for _, b := range []Bytes{v, -v} {
			want := bytesStringConcat(b)
			if got := b.String(); got != want {
				t.Errorf("Bytes(%d).String() = %q, want %q", int64(b), got, want)
			}
			if got := string(b.AppendString([]byte("x "))); got != "x "+want {
				t.Errorf("Bytes(%d).AppendString(\"x \") = %q, want %q", int64(b), got, "x "+want)
			}
		}
	}
}
