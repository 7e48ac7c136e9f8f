// Package onepass infers a job's slowdown curve from one ordinary run
// (memplan profile --one-pass, issue 15): it samples which pages the job
// references over windows of many lengths and derives, by the
// working-set theory, how many pages a second the job would need back
// from swap at each resident size.
package onepass
