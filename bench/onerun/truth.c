/*
 * truth: a job that logs its own progress, to check the one run's progress
 * clock against. It fills MIB MiB of 64-bit words (half random, half small),
 * then does ITERS steps: a word at a random index (HOT percent of the steps
 * within the first eighth of the array, the rest anywhere), WORK dependent
 * multiply-adds on it, written back. Every 0.1 s it records the wall time
 * since it started, the steps done and its user and system time; at the end
 * it writes them to LOG.PID, one line each, then "END wall steps user sys
 * majflt".
 *
 *   cc -O2 -o truth bench/onerun/truth.c
 *   ./truth MIB ITERS WORK LOG [HOT]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static double secs(struct timeval t) { return t.tv_sec + t.tv_usec * 1e-6; }

#define MAXREC 100000
static double rec[MAXREC][4];

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: truth MIB ITERS WORK LOG [HOT]\n");
		return 2;
	}
	double t0 = mono();
	size_t words = (size_t)atol(argv[1]) << 17;
	long iters = atol(argv[2]);
	int work = atoi(argv[3]);
	unsigned hot = (argc > 5 ? atoi(argv[5]) : 50) * 1024 / 100;
	uint64_t *a = malloc(words * 8), x = 0x9e3779b97f4a7c15ULL, sum = 0;
	if (!a || words < 8) {
		fprintf(stderr, "truth: cannot allocate %s MiB\n", argv[1]);
		return 1;
	}
	for (size_t i = 0; i < words; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a[i] = (i & 1) ? x : (i & 255);
	}
	int n = 0;
	double last = t0;
	for (long it = 0; it < iters; it++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		size_t i = ((x & 1023) < hot) ? (x >> 12) % (words / 8) : (x >> 12) % words;
		uint64_t v = a[i];
		for (int k = 0; k < work; k++)
			v = v * 6364136223846793005ULL + 1442695040888963407ULL;
		a[i] = v;
		sum += v;
		if ((it & 1023) == 0) {
			double t = mono();
			if (t - last >= 0.1 && n < MAXREC) {
				struct rusage r;
				getrusage(RUSAGE_SELF, &r);
				rec[n][0] = t - t0, rec[n][1] = it;
				rec[n][2] = secs(r.ru_utime), rec[n][3] = secs(r.ru_stime);
				n++, last = t;
			}
		}
	}
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	char path[4096];
	snprintf(path, sizeof path, "%s.%d", argv[4], (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	for (int k = 0; k < n; k++)
		fprintf(f, "%.3f %.0f %.3f %.3f\n", rec[k][0], rec[k][1], rec[k][2], rec[k][3]);
	fprintf(f, "END %.3f %ld %.3f %.3f %ld\n", mono() - t0, iters, secs(r.ru_utime), secs(r.ru_stime), r.ru_majflt);
	fclose(f);
	printf("%llu\n", (unsigned long long)sum);
	return 0;
}
