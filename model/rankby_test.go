package model_test

import (
	"errors"
	"testing"

	"github.com/memplan/memplan/internal/usage"
	"github.com/memplan/memplan/internal/yamlx"
	"github.com/memplan/memplan/model"
)

// Input.RankBy is the caller's choice of ranking for one run: it replaces
// the workload's options.rank_by without changing the workload, and an
// error it causes names the field it stands in for, as a typed field.
func TestInputRankBy(t *testing.T) {
	in := loadIntel(t) // RUB prices, no electricity price: TCO cannot be priced
	if in.Workload.Options.RankBy != model.RankCapital {
		t.Fatalf("the example ranks by %q", in.Workload.Options.RankBy)
	}
	in.RankBy = model.RankTCO
	_, err := model.Recommend(in)
	var ie *yamlx.InputError
	if !errors.As(err, &ie) || ie.Field != model.FieldRankBy || !errors.Is(err, usage.ErrInput) {
		t.Fatalf("rank by TCO without a RUB electricity price: %v (%T), want an input error on %s", err, err, model.FieldRankBy)
	}
	if in.Workload.Options.RankBy != model.RankCapital {
		t.Errorf("Recommend changed the caller's workload to rank by %q", in.Workload.Options.RankBy)
	}

	in.RankBy = "cheapest"
	if _, err := model.Recommend(in); !errors.As(err, &ie) || ie.Field != model.FieldRankBy || !errors.Is(err, usage.ErrInput) {
		t.Errorf("RankBy %q: %v, want an input error on %s", in.RankBy, err, model.FieldRankBy)
	}

	in.RankBy = model.RankCapital
	res, err := model.Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	if res.TCO == nil || res.TCO.RankBy != model.RankCapital {
		t.Errorf("TCO info %+v, want ranked by capital", res.TCO)
	}
	// The analyses re-run the ranking with the same choice.
	if _, err := model.BreakEven(model.Input{Workload: in.Workload, Prices: in.Prices, Factors: in.Factors, RankBy: "cheapest"}, res); !errors.As(err, &ie) {
		t.Errorf("BreakEven with RankBy %q: %v", "cheapest", err)
	}
}
