//go:build linux

package profile

import (
	"strings"
	"testing"
)

// TestOneRunTransferDoesNotClaimNoFaults: a one run's transfer line names
// the faults it counted and why they fit no cost per fault, instead of
// saying that the constrained runs counted none.
func TestOneRunTransferDoesNotClaimNoFaults(t *testing.T) {
	var ts TransferSummary
	ts.choose(nil)
	if !strings.Contains(ts.Why, "counted no major faults") {
		t.Fatalf("multi-run wording changed: %q", ts.Why)
	}
	ts.oneRun(184213)
	if strings.Contains(ts.Why, "counted no major faults") || !strings.Contains(ts.Why, "184213 major faults") || ts.Method != TransferRatio {
		t.Errorf("one run: method %q, why %q; want the ratio and the run's 184213 faults named", ts.Method, ts.Why)
	}
	fitted := TransferSummary{PerFault: 12.5, FaultsCounted: 900}
	fitted.oneRun(900)
	if fitted.Why != "" {
		t.Errorf("a fitted cost per fault was reworded: %q", fitted.Why)
	}
}
