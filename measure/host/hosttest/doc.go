//go:build linux

// Package hosttest holds what tests of the measure packages share: Fake, a
// fixture tree standing in for /proc and /sys that acts on swapon, zram
// and cgroup writes the way the kernel would; Unchanged, which compares the
// real host with how a test found it; a logging Progress; and NonRoot.
package hosttest
