//go:build linux && hosttest

package roottest

// hostTests: built with -tags hosttest, the tests that change the host run.
const hostTests = true
