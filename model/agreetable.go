package model

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/memplan/memplan/factors"
)

// The agreement search (agree) checks a factor set's observed curves
// against each other under every combination of the unknowns: for the
// embedded defaults, 5,049 combinations and most of what `memplan
// recommend` costs on a small catalog. Its answer depends only on what
// agreementKey hashes (the curves, the set's overhead and readahead, and
// the grid), so the answers for the embedded defaults are computed once,
// by `go generate`, into knownAgreements (agreetable_gen.go), and looked
// up by that hash. Any change to those inputs changes the hash and the
// search runs as before; a change to the search's code is caught by
// TestKnownAgreementsAreCurrent, which recomputes every entry.

//go:generate go test -run TestKnownAgreementsAreCurrent -write-agreements .

// agreementRecord is an agreement without its grid.
type agreementRecord struct {
	Kept       []int
	Consistent int
	Misfit     float64
	Curves     int
}

// agreementKey is the hash of everything agree reads: fs's observed
// curves, in the order it checks them, fs's software overhead and
// readahead, and every field of every combination in grid. "" when they
// cannot be encoded (the search then runs).
//
// The encoding can be read back, so two inputs never share it: each
// combination is its fields in a fixed order as varints (a fraction as
// its float's bits with the bytes reversed, so that the round positions
// the grid uses take a byte or two), and its shape as a place in the list
// of shapes met so far, a new one followed by the shape in full. The
// grids of the embedded defaults hold 11,934 combinations, and hashing
// them is work every `memplan recommend` does.
func (fs *Factors) agreementKey(grid []scenario) string {
	h := sha256.New()
	var buf []byte
	num := func(x float64) { buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x)) }
	whole := func(x int64) { buf = binary.LittleEndian.AppendUint64(buf, uint64(x)) }
	text := func(s string) { whole(int64(len(s))); buf = append(buf, s...) }
	small := func(x int64) { buf = binary.AppendVarint(buf, x) }
	frac := func(x float64) { buf = binary.AppendUvarint(buf, bits.ReverseBytes64(math.Float64bits(x))) }
	text("agree/3")
	// The curves as a factor file writes them (every field they have).
	var curves []*factors.Curve
	for _, k := range fs.observedClasses() {
		curves = append(curves, fs.Curves[k])
	}
	b, err := json.Marshal(curves)
	if err != nil {
		return ""
	}
	text(string(b))
	whole(int64(fs.FaultOverhead))
	whole(int64(fs.FaultOverheadRange[0]))
	whole(int64(fs.FaultOverheadRange[1]))
	num(fs.Readahead.Faults)
	num(fs.Readahead.Pages)
	var shapes []factors.Shape
	i := -1
	for _, s := range grid {
		// A grid lists one shape's combinations together: the last
		// shape's place is the first guess.
		if i < 0 || !sameShape(shapes[i], s.shape) {
			i = slices.IndexFunc(shapes, func(x factors.Shape) bool { return sameShape(x, s.shape) })
		}
		if i < 0 {
			sb, err := json.Marshal(s.shape)
			if err != nil {
				return ""
			}
			i = len(shapes)
			shapes = append(shapes, s.shape)
			small(int64(i))
			text(string(sb))
		} else {
			small(int64(i))
		}
		small(int64(s.overhead))
		small(int64(s.fitPos))
		small(int64(s.band))
		frac(s.dirtyPos)
		frac(s.writePos)
		frac(s.localityPos)
		if len(buf) > 1<<14 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// sameShape reports whether a and b are the same shape in every field.
func sameShape(a, b factors.Shape) bool {
	return a.Name == b.Name && a.Exponent == b.Exponent && a.Knee == b.Knee && a.KneeExponent == b.KneeExponent && a.Readahead == b.Readahead &&
		a.Locality == b.Locality && a.Source == b.Source && slices.Equal(a.LocalityRange, b.LocalityRange)
}

// agreeKnown is agree, answered from knownAgreements where the inputs
// are ones it holds.
func (fs *Factors) agreeKnown(grid []scenario) agreement {
	if tableLog != nil {
		tableLog(tableQuery{fs: fs, grid: grid})
	}
	key := fs.agreementKey(grid)
	if r, ok := knownAgreements[key]; ok && key != "" && len(grid) > 0 {
		return agreement{grid: grid, kept: r.Kept, consistent: r.Consistent, misfit: r.Misfit, curves: r.Curves, key: key}
	}
	a := fs.agree(grid)
	a.key = key
	return a
}

// tableLog, when not nil, is told of every lookup that agreeKnown and
// plan make, answered from the table or not. The generator
// (TestKnownAgreementsAreCurrent) sets it while it runs the analyses the
// table covers, to learn what they ask for; it is nil otherwise.
var tableLog func(q tableQuery)

// tableQuery is one lookup: an agreement search on fs over grid, or (plan
// true) fs's joint plan of sources on a.
type tableQuery struct {
	fs      *Factors
	grid    []scenario
	plan    bool
	a       agreement
	sources []*factors.Curve
	seeks   bool
}

// planRun is one run of a joint plan: its source (a place in the
// sources), its combination (a place in the agreement's grid) and what
// jointPlan set on it.
type planRun struct {
	Src, Grid, FitPos, Band, Weight int
	Loc                             float64
}

// planKey is the hash of what jointPlan reads besides the agreement:
// the sources (inferred ones are not in the agreement's key) and whether
// the target seeks.
func planKeyOf(a agreement, sources []*factors.Curve, seeks bool) string {
	b, err := json.Marshal(sources)
	if a.key == "" || err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "plan/1 %s %v %d:", a.key, seeks, len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// plan is jointPlan, answered from knownPlans where it holds the inputs.
func (fs *Factors) plan(a agreement, sources []*factors.Curve, seeks bool) []carried {
	if tableLog != nil {
		tableLog(tableQuery{fs: fs, plan: true, a: a, sources: sources, seeks: seeks})
	}
	if runs, ok := knownPlans[planKeyOf(a, sources, seeks)]; ok {
		out := make([]carried, len(runs))
		for i, r := range runs {
			s := a.grid[r.Grid]
			s.fitPos, s.band, s.localityPos = r.FitPos, r.Band, r.Loc
			out[i] = carried{runDef: &runDef{src: sources[r.Src], s: s, weight: r.Weight, grid: r.Grid}}
		}
		return out
	}
	return fs.jointPlan(a, sources, seeks, seeks && !searchedLocality(a))
}
