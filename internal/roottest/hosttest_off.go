//go:build linux && !hosttest

package roottest

// hostTests: without -tags hosttest, the tests that change the host skip.
const hostTests = false
