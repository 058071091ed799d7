/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mempool-embed: a program that uses linerate's mempool as a library, the
 * way an application with its own threads would. It never calls
 * lr_eal_init(): the first pool sets up the page allocator's default heap
 * in ordinary memory. Two pthreads register (lr_thread_register) to get
 * their own per-lcore caches; the main thread stays unregistered and uses
 * the shared path.
 *
 * Build against an installed linerate (links liblinerate_mempool and the
 * three libraries below it: _pagealloc, _ring, _eal):
 *   cc -O2 -o mempool-embed main.c -pthread \
 *      $(pkg-config --cflags --libs linerate_mempool)
 * or statically: pkg-config --cflags --libs --static linerate
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <lr_mempool.h>

#define POOL_SIZE 4096
#define OBJ_SIZE  256
#define ROUNDS	  20000
#define BURST	  32

/* Both workers hold their lcore ids at the same time. */
static pthread_barrier_t registered;

struct thread_arg {
	struct lr_mempool *mp;
	int lcore_id;
	unsigned long got;
	unsigned long bad;
};

static void *
worker(void *p)
{
	struct thread_arg *a = p;
	void *objs[BURST];

	a->lcore_id = lr_thread_register();
	pthread_barrier_wait(&registered);
	if (a->lcore_id < 0)
		return NULL;
	for (unsigned r = 0; r < ROUNDS; r++) {
		unsigned n = 1 + r % BURST;

		if (lr_mempool_get_bulk(a->mp, objs, n) != 0)
			continue;
		for (unsigned i = 0; i < n; i++) {
			/* Own the object for a moment: a second owner
			 * would overwrite the stamp. */
			uintptr_t *o = objs[i];

			o[0] = (uintptr_t)a;
			o[1] = r;
		}
		for (unsigned i = 0; i < n; i++) {
			uintptr_t *o = objs[i];

			if (o[0] != (uintptr_t)a || o[1] != r)
				a->bad++;
		}
		a->got += n;
		lr_mempool_put_bulk(a->mp, objs, n);
	}
	/* Unregistering flushes this thread's cache back to the pool. */
	lr_thread_unregister();
	return NULL;
}

int
main(void)
{
	struct thread_arg args[2];
	pthread_t tid[2];
	struct lr_mempool *mp;
	void *one;
	int rc = 0;

	mp = lr_mempool_create("embed", POOL_SIZE, OBJ_SIZE, 64, 0, NULL, NULL,
			       LR_SOCKET_ID_ANY, 0);
	if (mp == NULL) {
		fprintf(stderr, "mempool-embed: create: %s\n",
			lr_strerror(lr_errno));
		return 1;
	}
	/* The main thread has no lcore id: it takes the shared path. */
	if (lr_mempool_get(mp, &one) != 0) {
		fprintf(stderr, "mempool-embed: get from main failed\n");
		return 1;
	}
	pthread_barrier_init(&registered, NULL, 2);
	for (int i = 0; i < 2; i++) {
		memset(&args[i], 0, sizeof(args[i]));
		args[i].mp = mp;
		args[i].lcore_id = -1;
		pthread_create(&tid[i], NULL, worker, &args[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&registered);
	lr_mempool_put(mp, one);

	for (int i = 0; i < 2; i++) {
		printf("thread %d: lcore %d, %lu objects, %lu bad\n", i,
		       args[i].lcore_id, args[i].got, args[i].bad);
		if (args[i].lcore_id < 0 || args[i].bad != 0 ||
		    args[i].got == 0)
			rc = 1;
	}
	if (args[0].lcore_id == args[1].lcore_id)
		rc = 1;
	printf("pool: size %u, avail %u, in use %u, validate %d\n", mp->size,
	       lr_mempool_avail_count(mp), lr_mempool_in_use_count(mp),
	       lr_mempool_validate(mp));
	if (lr_mempool_avail_count(mp) != POOL_SIZE ||
	    lr_mempool_store_count(mp) != POOL_SIZE ||
	    lr_mempool_validate(mp) != 0)
		rc = 1;
	lr_mempool_free(mp);
	printf("mempool-embed: %s\n", rc == 0 ? "OK" : "FAILED");
	return rc;
}
