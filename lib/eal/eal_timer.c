/* SPDX-License-Identifier: BSD-3-Clause */
/* Cycle-counter frequency, calibrated once against CLOCK_MONOTONIC_RAW. */
#include <pthread.h>
#include <time.h>

#include "lr_common.h"
#include "lr_cycles.h"

static uint64_t tsc_hz;
static uint64_t tsc_overhead;
static pthread_once_t tsc_once = PTHREAD_ONCE_INIT;

uint64_t
lr_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void
calibrate(void)
{
	/* Three 20 ms windows; keep the median so one preemption does not
	 * skew the result. */
	uint64_t hz[3];

	for (int i = 0; i < 3; i++) {
		struct timespec d = { .tv_sec = 0, .tv_nsec = 20000000 };
		uint64_t t0 = lr_time_ns(), c0 = lr_get_tsc_cycles();

		nanosleep(&d, NULL);
		uint64_t t1 = lr_time_ns(), c1 = lr_get_tsc_cycles();
		hz[i] = (uint64_t)((double)(c1 - c0) * 1e9 / (double)(t1 - t0));
	}
	if (hz[0] > hz[1]) { uint64_t t = hz[0]; hz[0] = hz[1]; hz[1] = t; }
	if (hz[1] > hz[2]) { uint64_t t = hz[1]; hz[1] = hz[2]; hz[2] = t; }
	if (hz[0] > hz[1]) { uint64_t t = hz[0]; hz[0] = hz[1]; hz[1] = t; }
	tsc_hz = hz[1];

	/* Cost of reading the counter: the minimum over many back-to-back
	 * reads. */
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 2000; i++) {
		uint64_t a = lr_get_tsc_cycles();
		uint64_t b = lr_get_tsc_cycles();

		if (b - a < best)
			best = b - a;
	}
	tsc_overhead = best;
}

uint64_t
lr_get_tsc_hz(void)
{
	pthread_once(&tsc_once, calibrate);
	return tsc_hz;
}

uint64_t
lr_tsc_read_overhead(void)
{
	pthread_once(&tsc_once, calibrate);
	return tsc_overhead;
}

void
lr_delay_us(unsigned us)
{
	uint64_t end = lr_get_tsc_cycles() + lr_get_tsc_hz() * us / 1000000;

	while (lr_get_tsc_cycles() < end)
		lr_pause();
}
