//go:build linux

package emulate

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"time"
)

const workloadEnv = "MEMPLAN_EMULATE_TEST_WORKLOAD"

// runWorkload is the swap test's job: it waits for a line on stdin (its
// cgroup is set by then), touches $MEMPLAN_EMULATE_TEST_WORKLOAD MiB one
// page at a time, then, after another line, touches it again and prints the second pass's time.
func runWorkload() {
	mib, _ := strconv.Atoi(os.Getenv(workloadEnv))
	in := bufio.NewReader(os.Stdin)
	in.ReadString('\n')
	b := make([]byte, mib<<20)
	for i := 0; i < len(b); i += pageBytes {
		b[i] = byte(i>>12) | 1
	}
	fmt.Println("first pass done")
	in.ReadString('\n')
	t0 := time.Now()
	var sum int
	for i := 0; i < len(b); i += pageBytes {
		sum += int(b[i])
	}
	fmt.Printf("%d %d\n", time.Since(t0).Nanoseconds(), sum)
}
