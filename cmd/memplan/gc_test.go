package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent is the collector's setting now.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestGCGoesBackToTheDefaultOnceTheLiveHeapIsLarge: a command starts
// collecting less often and is back at GOGC=100 after the first
// collection that finds more live heap than the limit, not before.
func TestGCGoesBackToTheDefaultOnceTheLiveHeapIsLarge(t *testing.T) {
	defer debug.SetGCPercent(gcPercent())
	startGC(400, 32<<20)
	if p := gcPercent(); p != 400 {
		t.Fatalf("after startGC the collector is at %d, want 400", p)
	}
	// Small live heap: collections leave the setting alone.
	for range 3 {
		runtime.GC()
	}
	time.Sleep(20 * time.Millisecond) // finalizers run on their own goroutine
	if p := gcPercent(); p != 400 {
		t.Fatalf("with a small live heap the collector went to %d, want 400 kept", p)
	}
	live := make([][]byte, 64)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	deadline := time.Now().Add(5 * time.Second)
	for gcPercent() != 100 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	runtime.KeepAlive(live)
	if p := gcPercent(); p != 100 {
		t.Errorf("with 64 MiB live and a 32 MiB limit the collector stayed at %d, want 100", p)
	}
}

// TestGCLeavesAnExplicitGOGCAlone: GOGC in the environment wins.
func TestGCLeavesAnExplicitGOGCAlone(t *testing.T) {
	defer debug.SetGCPercent(gcPercent())
	debug.SetGCPercent(150)
	t.Setenv("GOGC", "150")
	tuneGC()
	if p := gcPercent(); p != 150 {
		t.Errorf("with GOGC=150 set the collector is at %d, want 150", p)
	}
}
