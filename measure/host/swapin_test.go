//go:build linux

package host

import "testing"

func TestAnonMappingsKeepsOnlyMappingsWithoutAFile(t *testing.T) {
	maps := []byte(`55d0c0a00000-55d0c0a21000 r--p 00000000 fd:01 1311 /usr/bin/vvp
55d0c1e00000-55d0c1e42000 rw-p 00000000 00:00 0          [heap]
7f3a10000000-7f3a30000000 rw-p 00000000 00:00 0
7f3a40000000-7f3a40021000 rw-p 00001000 fd:01 2222 /usr/lib/x86_64-linux-gnu/libc.so.6
7ffd1a000000-7ffd1a021000 rw-p 00000000 00:00 0          [stack]
7ffd1a1f0000-7ffd1a1f4000 r--p 00000000 00:00 0          [vvar]
7ffd1a1f4000-7ffd1a1f6000 r-xp 00000000 00:00 0          [vdso]
ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]
garbage line
`)
	got := anonMappings(maps)
	want := []remoteIovec{
		{0x55d0c1e00000, 0x42000},
		{0x7f3a10000000, 0x20000000},
		{0x7ffd1a000000, 0x21000},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d ranges %x, want %x", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("range %d: got %x, want %x", i, got[i], want[i])
		}
	}
}
