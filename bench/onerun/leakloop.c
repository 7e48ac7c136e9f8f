// leakloop N SECS: touches random pages of an N MiB buffer until it has
// used SECS of CPU time, then prints its user and system time, their
// user share and its major faults. Under a memory limit below N MiB each
// touch is a swap fault on the path a job's own faults take.
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <stdint.h>
int main(int argc, char **argv) {
	size_t n = (size_t)atoi(argv[1]) << 20; double secs = atof(argv[2]);
	char *m = mmap(0, n, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < n; i += 8) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; *(uint64_t*)(m+i) = x; }
	struct rusage r0, r; getrusage(RUSAGE_SELF, &r0);
	long pages = n >> 12, touches = 0;
	for (;;) {
		for (int k = 0; k < 4096; k++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; m[(x % pages) << 12]++; touches++; }
		getrusage(RUSAGE_SELF, &r);
		double u = (r.ru_utime.tv_sec - r0.ru_utime.tv_sec) + (r.ru_utime.tv_usec - r0.ru_utime.tv_usec)/1e6;
		double s = (r.ru_stime.tv_sec - r0.ru_stime.tv_sec) + (r.ru_stime.tv_usec - r0.ru_stime.tv_usec)/1e6;
		if (u + s >= secs) { printf("user %.3f sys %.3f share %.3f majflt %ld touches %ld\n", u, s, u/(u+s), r.ru_majflt - r0.ru_majflt, touches); return 0; }
	}
}
