/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_profile: lr-pktgen's stream profiles (--profile FILE.json),
 * pg_profile_load() of apps/pktgen/profile.c, on any bytes: a profile it
 * accepts has streams whose frames hold their headers and stamp within
 * the largest frame, at most two tags, sizes of its table within bounds;
 * one it refuses leaves nothing allocated (LeakSanitizer).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "pktgen.h"

static int fd = -1;
static char path[64];

static void
check(const struct pg_sdef *d)
{
	unsigned need = pg_sdef_hdr_len(d) + PG_PAYLOAD_LEN + PG_FCS;

	FUZZ_CHECK(d->ntags <= PG_MAX_TAGS && d->l4 <= PG_L4_ICMP);
	FUZZ_CHECK(pg_sdef_max_len(d) + PG_FCS <= PG_MAX_SIZE);
	FUZZ_CHECK(pg_sdef_max_len(d) + PG_FCS >= need);
	FUZZ_CHECK(strlen(d->name) > 0 && strlen(d->name) < PG_NAME_MAX);
	FUZZ_CHECK(d->patlen <= PG_PAT_MAX && d->share > 0);
	if (d->slots == NULL) {
		FUZZ_CHECK(d->size.lo >= need && d->size.lo <= d->size.hi &&
			   d->size.step >= 1);
	} else {
		FUZZ_CHECK(d->nslots >= 1 && d->nslots <= PG_MAX_SLOTS);
		for (unsigned i = 0; i < d->nslots; i++)
			FUZZ_CHECK(d->slots[i] >= need &&
				   d->slots[i] <= PG_MAX_SIZE);
	}
	for (int f = 0; f < PG_FV_COUNT; f++)
		FUZZ_CHECK(d->v[f].lo <= d->v[f].hi && d->v[f].step >= 1 &&
			   d->v[f].mode <= PG_V_RANDOM);
	FUZZ_CHECK(d->v[PG_FV_VLAN].hi <= 4095 &&
		   d->v[PG_FV_SRC_PORT].hi <= 65535 &&
		   d->v[PG_FV_DST_PORT].hi <= 65535);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_sdef *d = NULL;
	int n;

	if (fd < 0) {
		fd = memfd_create("fuzz_profile", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	n = pg_profile_load(path, &d);
	FUZZ_CHECK(n == -EINVAL || n == -ENOMEM ||
		   (n >= 1 && n <= PG_MAX_SDEFS && d != NULL));
	for (int i = 0; i < n; i++) {
		check(&d[i]);
		pg_sdef_fini(&d[i]);
	}
	if (n > 0)
		free(d);
	return 0;
}
