//go:build linux

// Package device measures a storage device the way swapping uses it: 4 KiB
// random reads and writes at queue depths 1 and 32 and 1 MiB sequential
// transfers, with O_DIRECT (Linux native AIO for queue depths above one) on
// a temporary file in a directory on the device, so the figures are the
// device's and not the page cache's. Profile is what it measured, with the
// filesystem and the block device below it (resolved through
// measure/host's mountinfo and sysfs readers) and warnings where the
// figures will not describe a real device (tmpfs, a file smaller than the
// device's cache). The transfer model carries a slowdown curve from one
// device to another by the ratio of their per-fault service times; these
// are the figures it needs. Classify files the device by its measured
// latency when the kernel's rotational flag contradicts it.
package device
