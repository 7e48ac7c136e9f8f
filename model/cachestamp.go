package model

import (
	"crypto/sha256"
	"encoding/json"
	"sort"
	"sync"

	"github.com/memplan/memplan/factors"
)

// A Factors caches what its predictions share (the transfer error, the
// joint agreements and plans, prepared curves and their figures). Each
// cache is valid for the fields it was filled from, and those fields are
// exported: a caller may change them between predictions (a test that
// drops a curve, a tool that swaps the overhead). So the caches are keyed
// by a stamp of every field a prediction reads, checked at every entry
// point (Predict, PredictShape, TransferError, CrossValidate, Recommend,
// Uncertainty, BreakEven): where the fields no longer match the stamp, the
// caches are emptied before anything reads them. Inside one call the
// fields are taken as fixed; changing them while a call runs is a data
// race like any other. The rate cache needs no stamp: it is keyed by all
// it depends on (rateKey).

// stampGuard holds the stamp the caches were filled under.
type stampGuard struct {
	mu  sync.Mutex
	sum [sha256.Size]byte
	set bool
}

// inputs is what a prediction reads of a Factors, in a form that encodes
// the same for the same fields.
type inputs struct {
	Curves             []*factors.Curve
	Software           []factors.Software
	TransferFrom       string
	FaultOverhead      int64
	FaultOverheadRange [2]int64
	TargetOverhead     []factors.TargetOverhead
	Shapes             []factors.Shape
	Readahead          factors.Readahead
	Origin             []string // class=file, sorted
	Profiles           []string // the files that are a job's profile
}

// stamp hashes fs's inputs (false when they cannot be encoded: the
// caches are then emptied at every check).
func (fs *Factors) stamp() ([sha256.Size]byte, bool) {
	in := inputs{TransferFrom: fs.TransferFrom, FaultOverhead: int64(fs.FaultOverhead),
		FaultOverheadRange: [2]int64{int64(fs.FaultOverheadRange[0]), int64(fs.FaultOverheadRange[1])},
		TargetOverhead:     fs.TargetOverhead, Shapes: fs.Shapes, Readahead: fs.Readahead}
	for _, k := range fs.Classes() {
		in.Curves = append(in.Curves, fs.Curves[k])
	}
	names := make([]string, 0, len(fs.Software))
	for n := range fs.Software {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		in.Software = append(in.Software, fs.Software[n])
	}
	for k, f := range fs.Origin {
		in.Origin = append(in.Origin, k+"="+f)
	}
	sort.Strings(in.Origin)
	for _, f := range fs.Files {
		if f != nil && f.Extra["profile"] != nil {
			in.Profiles = append(in.Profiles, f.File)
		}
	}
	b, err := json.Marshal(in)
	if err != nil {
		return [sha256.Size]byte{}, false
	}
	return sha256.Sum256(b), true
}

// revalidate empties fs's caches unless they were filled from the fields
// fs has now.
func (fs *Factors) revalidate() {
	if fs == nil || fs.guard == nil {
		return
	}
	sum, ok := fs.stamp()
	g := fs.guard
	g.mu.Lock()
	defer g.mu.Unlock()
	if ok && g.set && g.sum == sum {
		return
	}
	g.sum, g.set = sum, ok
	fs.dropCaches()
}

// dropCaches empties every stamped cache, each under its own lock.
func (fs *Factors) dropCaches() {
	if t := fs.transfer; t != nil {
		t.mu.Lock()
		t.ok = false
		t.mu.Unlock()
	}
	if c := fs.joint; c != nil {
		c.mu.Lock()
		c.m, c.plans, c.groups, c.same = nil, nil, nil, nil
		c.derived, c.derivedOK = jointSet{}, false
		c.mu.Unlock()
		c.zmu.Lock()
		c.zswaps, c.figs = nil, nil
		c.zmu.Unlock()
	}
	if c := fs.preps; c != nil {
		c.mu.Lock()
		c.m, c.ests = nil, nil
		c.mu.Unlock()
	}
}

// revalidateInput checks every factor set of a search.
func revalidateInput(in Input) {
	in.Factors.revalidate()
	for _, f := range in.JobFactors {
		f.revalidate()
	}
}

// newCaches are empty caches for a new factor set.
func (fs *Factors) newCaches() {
	fs.transfer, fs.rates, fs.joint, fs.preps, fs.guard = &transferCache{}, &rateCache{}, &jointCache{}, &prepCache{}, &stampGuard{}
}
