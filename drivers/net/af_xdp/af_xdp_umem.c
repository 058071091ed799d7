/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_xdp_umem.c - net_af_xdp's UMEMs (af_xdp_private.h says which file
 * does what): a queue's UMEM of one or two page blocks and the mbuf pool
 * laid over it, from queue setup to close, and the UMEMs shared by the
 * queues set up with one mempool (shared_umem=1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "af_xdp_private.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_pagealloc.h"

/* Every control op that may reach a shared UMEM holds it
 * (af_xdp_private.h). */
pthread_mutex_t lr_af_xdp_shumem_lock_ = PTHREAD_MUTEX_INITIALIZER;
static struct shumem *shumems; /* under lr_af_xdp_shumem_lock_ */

/* Frames per UMEM: as many as one block of at most the largest order
 * holds, up to FRAMES_MAX. */
static unsigned
umem_order(void)
{
	unsigned order = LR_MAX_ORDER - 1;

	while (order > 0 &&
	       ((size_t)LR_PAGE_SIZE << order) > (size_t)FRAMES_MAX * FRAME)
		order--;
	return order;
}

/* Largest UMEM of one queue: one block, or two adjacent ones. */
size_t
lr_af_xdp_umem_max_bytes_(void)
{
	size_t block = (size_t)LR_PAGE_SIZE << umem_order();

	return block >= (size_t)FRAMES_MAX * FRAME ? block : 2 * block;
}

/* A UMEM must be virtually contiguous and a block holds at most
 * LR_MAX_ORDER - 1 pages (4 MiB of 4 KiB pages: 2048 frames). When a block
 * does not reach FRAMES_MAX, take a second one and keep it if the buddy
 * heap placed it right before or after the first (common in a fresh heap):
 * the UMEM doubles and the rx ring may be twice as deep. Otherwise give it
 * back and stay with one block. */
static void
umem_grow(struct lr_eth_dev *dev, struct axq *q)
{
	struct lr_page *pg;
	char *a;

	if (q->umem_len >= (size_t)FRAMES_MAX * FRAME)
		return;
	pg =
	    lr_alloc_pages(dev->data->socket_id, q->order,
			   LR_ALLOC_PINNED | LR_ALLOC_ZERO | LR_ALLOC_THISNODE);
	if (pg == NULL)
		return;
	a = lr_page_address(pg);
	if (a == q->umem_base + q->umem_len) {
		q->page2 = pg;
	} else if (a + q->umem_len == q->umem_base) {
		q->page2 = q->page;
		q->page = pg;
		q->umem_base = a;
	} else {
		lr_free_pages(pg, q->order);
		return;
	}
	q->umem_len *= 2;
}

/* Give a UMEM's one or two blocks back to the allocator, owner cleared. */
static void
umem_blocks_free(struct lr_page *page, struct lr_page *page2, unsigned order)
{
	lr_page_set_owner(page, NULL, NULL);
	lr_free_pages(page, order);
	if (page2 != NULL) {
		lr_page_set_owner(page2, NULL, NULL);
		lr_free_pages(page2, order);
	}
}

/* Free a UMEM (the pool over it and its blocks) unless the application
 * still holds frames of it: freeing would hand its mbufs to others, so the
 * UMEM is kept (logged, naming `what`). 0, or -EBUSY when kept. */
static int
umem_release(const char *what, struct lr_mempool *mp, struct lr_page *page,
	     struct lr_page *page2, unsigned order, unsigned nb_frames)
{
	unsigned in_use = lr_mempool_in_use_count(mp);

	if (in_use != 0) {
		LR_LOG(ERR, PMD,
		       "%s: %u of %u UMEM frames still held by the "
		       "application at the last close; the UMEM is kept "
		       "(leaked)\n",
		       what, in_use, nb_frames);
		return -EBUSY;
	}
	lr_mempool_free(mp);
	umem_blocks_free(page, page2, order);
	return 0;
}

static void
umem_pages_free(struct axq *q)
{
	umem_blocks_free(q->page, q->page2, q->order);
	q->page = q->page2 = NULL;
}

/* Point queue q at a UMEM (base, len) and the pool over it. */
static int
queue_bind_mem(struct lr_eth_dev *dev, struct axq *q, char *base, size_t len,
	       struct lr_mempool *mp)
{
	size_t words;

	q->umem_base = base;
	q->umem_len = len;
	q->nb_frames = (unsigned)(len / FRAME);
	words = (q->nb_frames + 63) / 64;
	q->rx_held = calloc(words, sizeof(uint64_t));
	q->tx_held = calloc(words, sizeof(uint64_t));
	if (q->rx_held == NULL || q->tx_held == NULL) {
		free(q->rx_held);
		free(q->tx_held);
		q->rx_held = q->tx_held = NULL;
		return -ENOMEM;
	}
	q->mp = q->tx_mp = mp;
	q->buf_off = q->tx_buf_off = (uint16_t)lr_pktmbuf_xmem_buf_offset(0);
	q->umem_mb = q->tx_umem_mb = base + lr_mempool_obj_offset(0);
	q->tx_umem_base = base;
	q->tx_room =
	    (uint16_t)(lr_pktmbuf_data_room_size(mp) - LR_PKTMBUF_HEADROOM);
	q->port = dev->data->port_id;
	q->partial =
	    (uint8_t)((const struct axp *)dev->data->dev_private)->partial;
	q->dev = dev;
	return 0;
}

static struct shumem *
shumem_find(const struct lr_mempool *key)
{
	for (struct shumem *g = shumems; g != NULL; g = g->next)
		if (g->key == key)
			return g;
	return NULL;
}

static int
shumem_join(struct lr_eth_dev *dev, uint16_t qid, struct shumem *g)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	unsigned i;

	for (i = 0; i < SHARERS_MAX && g->member[i] != NULL; i++)
		;
	if (i == SHARERS_MAX) {
		LR_LOG(ERR, PMD,
		       "%s: queue %u: shared UMEM '%s' has %u sharers "
		       "already, the most\n",
		       dev->data->name, qid, g->mp->name, SHARERS_MAX);
		return -ENOSPC;
	}
	if (queue_bind_mem(dev, q, g->base, g->len, g->mp) != 0)
		return -ENOMEM;
	g->member[i] = q;
	g->refs++;
	q->sh = g;
	return 0;
}

static void
shumem_leave(struct axq *q)
{
	struct shumem *g = q->sh, **pp;
	char what[LR_MEMPOOL_NAMESIZE + 16];

	for (unsigned i = 0; i < SHARERS_MAX; i++)
		if (g->member[i] == q)
			g->member[i] = NULL;
	q->sh = NULL;
	if (--g->refs != 0)
		return;
	for (pp = &shumems; *pp != g; pp = &(*pp)->next)
		;
	*pp = g->next;
	snprintf(what, sizeof(what), "shared UMEM '%s'", g->mp->name);
	umem_release(what, g->mp, g->page, g->page2, g->order, g->nb_frames);
	free(g->parked);
	free(g);
}

/* A zeroed shared-UMEM entry with its parked-frame bitmap; NULL when out
 * of memory. */
static struct shumem *
shumem_new(void)
{
	struct shumem *g = calloc(1, sizeof(*g));

	if (g != NULL)
		g->parked = calloc((FRAMES_MAX + 63) / 64, sizeof(uint64_t));
	if (g == NULL || g->parked == NULL) {
		free(g);
		return NULL;
	}
	return g;
}

/* Give queue q of dev pinned, zeroed pages for its UMEM (grown to two
 * blocks when it can be); 0 or -ENOMEM after logging. */
static int
umem_pages_get(struct lr_eth_dev *dev, struct axq *q)
{
	q->order = umem_order();
	q->page = lr_alloc_pages(dev->data->socket_id, q->order,
				 LR_ALLOC_PINNED | LR_ALLOC_ZERO);
	if (q->page == NULL) {
		LR_LOG(ERR, PMD,
		       "%s: queue %u: no pages for a UMEM of %zu KiB: %s\n",
		       dev->data->name, q->qid,
		       ((size_t)LR_PAGE_SIZE << q->order) >> 10,
		       lr_strerror(lr_errno));
		return -ENOMEM;
	}
	q->umem_base = lr_page_address(q->page);
	q->umem_len = (size_t)LR_PAGE_SIZE << q->order;
	q->page2 = NULL;
	umem_grow(dev, q);
	return 0;
}

/* Hand queue q's UMEM (pages and pool mp) to the new shared entry g of
 * mempool key and list g: the shared UMEM owns the memory from now on. */
static void
shumem_adopt(struct shumem *g, struct axq *q, const struct lr_mempool *key,
	     struct lr_mempool *mp)
{
	g->key = key;
	g->mp = mp;
	g->page = q->page;
	g->page2 = q->page2;
	g->order = q->order;
	g->base = q->umem_base;
	g->len = q->umem_len;
	g->nb_frames = q->nb_frames;
	g->refs = 1;
	g->member[0] = q;
	g->parked_ifindex = -1;
	g->next = shumems;
	shumems = g;
	q->sh = g;
	q->page = q->page2 = NULL;
}

/* Give queue qid a UMEM: the shared one of mempool key when the port has
 * shared_umem=1 and key is not NULL (the first such queue allocates it),
 * else its own. */
int
lr_af_xdp_umem_alloc_(struct lr_eth_dev *dev, uint16_t qid,
		      const struct lr_mempool *key)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	char name[LR_MEMPOOL_NAMESIZE];
	struct lr_mempool *mp;
	struct shumem *g = NULL;
	int share = p->shared && key != NULL;

	if (q->mp != NULL)
		return 0;
	q->qid = qid;
	if (share) {
		g = shumem_find(key);
		if (g != NULL)
			return shumem_join(dev, qid, g);
		g = shumem_new();
		if (g == NULL)
			return -ENOMEM;
	}
	if (umem_pages_get(dev, q) < 0)
		goto free_shumem;
	snprintf(name, sizeof(name), "afxdp%s_p%u_q%u", share ? "_shared" : "",
		 dev->data->port_id, qid);
	mp = lr_pktmbuf_pool_create_xmem(name, q->umem_base, q->umem_len, FRAME,
					 POOL_CACHE, 0, dev->data->socket_id);
	if (mp == NULL) {
		LR_LOG(ERR, PMD,
		       "%s: queue %u: cannot lay a pool over the UMEM: %s\n",
		       dev->data->name, qid, lr_strerror(lr_errno));
		goto free_pages;
	}
	if (queue_bind_mem(dev, q, q->umem_base, q->umem_len, mp) != 0)
		goto free_pool;
	lr_page_set_owner(q->page, share ? (void *)g : (void *)q, mp->name);
	if (q->page2 != NULL)
		lr_page_set_owner(q->page2, share ? (void *)g : (void *)q,
				  mp->name);
	if (share)
		shumem_adopt(g, q, key, mp);
	return 0;

free_pool:
	lr_mempool_free(mp);
free_pages:
	umem_pages_free(q);
free_shumem:
	if (g != NULL)
		free(g->parked);
	free(g);
	return -ENOMEM;
}

/* Drop queue qid's UMEM (af_xdp_private.h). */
void
lr_af_xdp_umem_free_(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];

	if (q->mp == NULL)
		return;
	if (q->sh != NULL) {
		shumem_leave(q);
	} else {
		char what[LR_ETH_NAME_MAX_LEN + 16];

		snprintf(what, sizeof(what), "%s: queue %u", dev->data->name,
			 qid);
		umem_release(what, q->mp, q->page, q->page2, q->order,
			     q->nb_frames);
	}
	free(q->rx_held);
	free(q->tx_held);
	q->rx_held = q->tx_held = NULL;
	q->mp = q->tx_mp = NULL;
	q->page = q->page2 = NULL;
}
