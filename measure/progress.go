package measure

import "fmt"

// Progress receives what the probe is doing; the command renders it (bars
// on a terminal, plain lines otherwise). Implementations must be safe for
// use from one goroutine at a time; the probe never calls them
// concurrently.
type Progress interface {
	// Stage announces a group of runs (a backend, a scenario, a cycle of
	// the one run); runs is how many, 0 when the work decides (the one
	// run's slices go on until its command ends).
	Stage(name string, runs int)
	// RunDone reports a finished run.
	RunDone(r RunResult)
	// Note reports something skipped, not applicable or worth knowing.
	Note(msg string)
}

var Sprintf = fmt.Sprintf
