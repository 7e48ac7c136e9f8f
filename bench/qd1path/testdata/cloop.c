/* cloop: the QD1 4 KiB O_DIRECT random-read loop in C, with the same
 * timing as memplan's (a monotonic clock read either side of pread).
 * usage: cloop FILE SECONDS; prints "p50_us iops". Built by
 * bench/qd1path when a C compiler is present. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int64_t now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: cloop FILE SECONDS\n");
		return 2;
	}
	int fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	double secs = atof(argv[2]);
	int64_t blocks = lseek(fd, 0, SEEK_END) / 4096;
	void *buf;
	if (blocks <= 0 || posix_memalign(&buf, 4096, 4096) != 0) {
		fprintf(stderr, "cloop: empty file or no memory\n");
		return 1;
	}
	int64_t cap = 4000000, n = 0;
	int64_t *lat = malloc(cap * sizeof *lat);
	uint64_t x = (uint64_t)now() | 1;
	int64_t start = now(), end = start + (int64_t)(secs * 1e9), last = start;
	while (last < end && n < cap) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		off_t off = (off_t)(x % (uint64_t)blocks) * 4096;
		int64_t t0 = now();
		if (pread(fd, buf, 4096, off) != 4096) {
			perror("pread");
			return 1;
		}
		int64_t t1 = now();
		lat[n++] = t1 - t0;
		last = t1;
	}
	qsort(lat, n, sizeof *lat, cmp);
	printf("%.2f %.0f\n", lat[n / 2] / 1000.0, n / ((last - start) / 1e9));
	return 0;
}
