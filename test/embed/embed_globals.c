/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A program with globals of its own named like linerate's internals once
 * were (pa, eal_cfg, pa_lock): linked against the installed libraries,
 * dynamically or statically (test_embed.sh), it must neither fail to link
 * ("multiple definition") nor have them written by the library (a
 * library symbol that a program's global interposes).
 */
#include <stdint.h>
#include <stdio.h>

#include <lr_mempool.h>

uint32_t pa[4096];
char eal_cfg[256];
int pa_lock;

int
main(void)
{
	struct lr_mempool *mp;
	unsigned bad = 0;
	void *obj;

	for (unsigned i = 0; i < LR_DIM(pa); i++)
		pa[i] = 0x5a5a0000u + i;
	for (unsigned i = 0; i < sizeof(eal_cfg); i++)
		eal_cfg[i] = (char)i;
	pa_lock = 12345;

	/* The first pool builds the page allocator's default heap. */
	mp = lr_mempool_create("globals", 1024, 128, 32, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, 0);
	if (mp == NULL) {
		fprintf(stderr, "embed-globals: create: %s\n",
			lr_strerror(lr_errno));
		return 1;
	}
	if (lr_mempool_get(mp, &obj) != 0) {
		fprintf(stderr, "embed-globals: get failed\n");
		return 1;
	}
	lr_mempool_put(mp, obj);
	lr_mempool_free(mp);

	for (unsigned i = 0; i < LR_DIM(pa); i++)
		bad += pa[i] != 0x5a5a0000u + i;
	for (unsigned i = 0; i < sizeof(eal_cfg); i++)
		bad += eal_cfg[i] != (char)i;
	bad += pa_lock != 12345;
	printf("embed-globals: %u words changed: %s\n", bad,
	       bad ? "FAILED" : "OK");
	return bad != 0;
}
