package measure

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/memplan/memplan/units"
)

// TestRunResultReadsOldKeys: testdata/runs-before.json holds a probe run
// and a profile run as memplan wrote them before the two shared one run
// type (recorded by reports/measured's -record). Both load, the profile's
// "capped" as Censored and the probe's "peak_bytes" as Peak, and written
// again they carry the one set of keys.
func TestRunResultReadsOldKeys(t *testing.T) {
	data, err := os.ReadFile("testdata/runs-before.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Probe   RunResult `json:"probe_run"`
		Profile RunResult `json:"profile_run"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("testdata/runs-before.json: %v", err)
	}
	peak, _ := units.ParseBytes("66.1MiB")
	if p := f.Probe; p.Peak != peak || p.Censored || p.Visits != 131072 || p.Timed != 0.177618247 {
		t.Errorf("probe run: peak %s, censored %v, %d visits, timed %g; want peak 66.1MiB from peak_bytes, not censored, 131072 visits, timed 0.177618247",
			p.Peak, p.Censored, p.Visits, p.Timed)
	}
	peak, _ = units.ParseBytes("191.8MiB")
	if p := f.Profile; !p.Censored || p.Peak != peak || p.ExitCode != -1 || p.Signal != "killed" || p.User != 0.271568 {
		t.Errorf("profile run: censored %v, peak %s, exit %d, signal %q, user %g; want censored from capped, peak 191.8MiB, exit -1, killed, user 0.271568",
			p.Censored, p.Peak, p.ExitCode, p.Signal, p.User)
	}
	for name, r := range map[string]RunResult{"probe": f.Probe, "profile": f.Profile} {
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		for _, old := range []string{`"capped"`, `"peak_bytes"`} {
			if strings.Contains(string(out), old) {
				t.Errorf("%s run written again still has the old key %s: %s", name, old, out)
			}
		}
		if !strings.Contains(string(out), `"peak_charged_bytes"`) {
			t.Errorf("%s run written again has no peak_charged_bytes: %s", name, out)
		}
		var back RunResult
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatal(err)
		}
		if back.Peak != r.Peak || back.Censored != r.Censored || back.Wall != r.Wall {
			t.Errorf("%s run does not survive writing and reading: %+v, was %+v", name, back, r)
		}
	}
	if !strings.Contains(mustMarshal(t, f.Profile), `"censored":true`) {
		t.Errorf("the capped profile run is not written as censored: %s", mustMarshal(t, f.Profile))
	}
}

// TestRunResultNewKeysWin: a file with both spellings (written by hand)
// takes the new key's value.
func TestRunResultNewKeysWin(t *testing.T) {
	var r RunResult
	if err := json.Unmarshal([]byte(`{"peak_bytes":"1MiB","peak_charged_bytes":"2MiB","capped":false,"censored":true}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Peak != 2*units.MiB || !r.Censored {
		t.Errorf("peak %s, censored %v; want 2MiB and true, the new keys' values", r.Peak, r.Censored)
	}
	if err := json.Unmarshal([]byte(`{"capped":"yes"}`), &r); err == nil {
		t.Error(`"capped":"yes" loaded without an error`)
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
