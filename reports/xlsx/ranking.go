package xlsx

import (
	"math"
	"sort"
	"strconv"

	"github.com/memplan/memplan/model"
	"github.com/memplan/memplan/reports"
)

// The Rank column reproduces the model's ranking rule (model/rank.go)
// with formulas, so that a price edit re-ranks. Everything in that rule
// except the costs is in model.RankKey, which reports.Configuration
// rebuilds from the result file exactly as the model computed it: the
// rows are laid out in blocks that prices never change (each tier, and
// for misses each group of equal closeness to the deadline), and a row's
// rank is the rows before its block (a number) plus its position inside
// the block, counted with COUNTIF over the block alone: by ranked cost
// (not for misses), then cost per server, then the key's tie order.
// Counting is quadratic in the block size (spreadsheets without dynamic
// arrays cannot sort), so the blocks keep it as small as the model
// allows; see the benchmark note in docs/excel.md.

// tier is the configuration's ranking tier (model.TierMeets..TierMisses).
func tier(c reports.Configuration) int { return model.RankTier(c.MeetsDeadlines, c.AtRisk) }

// rankKeys holds, per row (index into book.rows), the static parts of the
// ranking.
type rankKeys struct {
	block     []span // the rows ranked together with this one
	before    []int  // rows of the blocks before it
	tieOrder  []int  // 1.. by the key's tie order: the last tie-break
	missGroup []int  // misses: 1.. groups of equal closeness, closest first; 0 otherwise
	// tieScale turns cost per server and tie order into one exact integer,
	// ROUND(cost per server x 100) x tieScale + tie order, so that ties on
	// fleet cost are broken with one count instead of two. Zero when costs
	// are too large for that to stay exact (see exactTieKey).
	tieScale int
}

// order sorts rows into sheet order (blocks, then memplan rank) and
// computes the ranking keys.
func order(rows []reports.Configuration) ([]reports.Configuration, rankKeys) {
	n := len(rows)
	keys := make([]model.RankKey, n)
	for i, c := range rows {
		keys[i] = c.RankKey()
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool {
		if d := keys[idx[i]].Block(keys[idx[j]]); d != 0 {
			return d < 0
		}
		return rows[idx[i]].Rank < rows[idx[j]].Rank
	})
	sorted, sk := make([]reports.Configuration, n), make([]model.RankKey, n)
	for pos, i := range idx {
		sorted[pos], sk[pos] = rows[i], keys[i]
	}
	rows, keys = sorted, sk

	k := rankKeys{block: make([]span, n), before: make([]int, n), tieOrder: make([]int, n), missGroup: make([]int, n)}
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(i, j int) bool { return keys[idx[i]].TieLess(keys[idx[j]]) })
	for pos, i := range idx {
		k.tieOrder[i] = pos + 1
	}
	group := 0
	for i := 0; i < n; {
		j := i
		for j < n && keys[j].Block(keys[i]) == 0 {
			j++
		}
		g := 0
		if keys[i].Tier == model.TierMisses {
			group++
			g = group
		}
		for x := i; x < j; x++ {
			k.block[x] = span{i + 2, j + 1}
			k.before[x] = i
			k.missGroup[x] = g
		}
		i = j
	}
	if exactTieKey(rows) {
		k.tieScale = n + 1
	}
	return rows, k
}

// exactTieKey reports whether ROUND(cost per server x 100) x (n+1) + n
// stays an integer a spreadsheet holds exactly and prints in full in a
// "<"&key criterion (below 10^15), even if someone multiplies a price by
// a hundred.
func exactTieKey(rows []reports.Configuration) bool {
	const margin = 100
	most := 0.0
	for _, c := range rows {
		most = max(most, c.CostPerServer.Float())
	}
	return (most*margin*100+1)*float64(len(rows)+1) < 1e15
}

// rankFormula is the Rank cell of row i (sheet row r).
func (b *book) rankFormula(i, r int) string {
	k := b.rank
	blk := k.block[i]
	// Built by concatenation, not fmt: this runs for every row.
	first, last, rs := strconv.Itoa(blk.first), strconv.Itoa(blk.last), strconv.Itoa(r)
	in := func(col int) string {
		c := colName(col)
		return "$" + c + "$" + first + ":$" + c + "$" + last
	}
	at := func(col int) string { return colName(col) + rs }
	// less is COUNTIF(S) over the block: the rows equal to this one in
	// the columns eq, and less than it in the column lt.
	less := func(eq []int, lt int) string {
		fn := "COUNTIF("
		if len(eq) > 0 {
			fn = "COUNTIFS("
		}
		for _, c := range eq {
			fn += in(c) + "," + at(c) + ","
		}
		return fn + in(lt) + `,"<"&` + at(lt) + ")"
	}
	before := strconv.Itoa(k.before[i])
	if tier(b.rows[i]) == model.TierMisses {
		// One group of equal slowdown: by cost per server, then ID.
		return before + "+" + less(nil, cPerServer) + "+" + less([]int{cPerServer}, cTieKey) + "+1"
	}
	if k.tieScale > 0 {
		// Ranked cost; ties by the tie key (cost per server, then order).
		return before + "+" + less(nil, cRankCost) + "+" + less([]int{cRankCost}, cTieKey) + "+1"
	}
	return before + "+" + less(nil, cRankCost) + "+" + less([]int{cRankCost}, cPerServer) + "+" +
		less([]int{cRankCost, cPerServer}, cTieKey) + "+1"
}

// tieKeyCell is the Tie key cell of row i: a formula when it folds in the
// cost per server, else the static tie order.
// perServer is the row's cost per server, for the formula's value.
func (b *book) tieKeyCell(i, r int, perServer float64) (formula string, value int64) {
	k := b.rank
	if tier(b.rows[i]) == model.TierMisses || k.tieScale == 0 {
		return "", int64(k.tieOrder[i])
	}
	v := int64(math.Round(perServer*100))*int64(k.tieScale) + int64(k.tieOrder[i])
	return "ROUND(" + cell(cPerServer, r) + "*100,0)*" + strconv.Itoa(k.tieScale) + "+" + strconv.Itoa(k.tieOrder[i]), v
}
