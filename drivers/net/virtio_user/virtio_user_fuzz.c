/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_virtio_user's hooks for the fuzz target (virtio_user_fuzz.h): a port
 * as after a set-up, without socket or thread, made by the same layout,
 * ring reset and burst functions the driver runs.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "virtio_user_fuzz.h"
#include "virtio_user_private.h"

/* The eventfds and id arrays of ring vr; 0 or -1. */
static int
ring_alloc(struct vu_vring *vr, uint32_t num)
{
	vr->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	vr->call_fd = -1;
	vr->free_ids = calloc(3 * (size_t)num, sizeof(uint16_t));
	if (vr->kick_fd < 0 || vr->free_ids == NULL)
		return -1;
	vr->chain_len = vr->free_ids + num;
	vr->chain_next = vr->free_ids + 2 * (size_t)num;
	return 0;
}

struct vu_port *
lr_vu_fuzz_port_new_(struct lr_mempool *mp, uint32_t qsize, int packed, int mrg,
		     int in_order, int event_idx)
{
	struct vu_port *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->name = "net_virtio_user_fuzz";
	p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->lis = p->sock = -1;
	p->nq = p->queues = 1;
	p->qsize = qsize;
	p->packed = packed;
	pthread_mutex_init(&p->lock, NULL);
	lr_shm_init(&p->shm);
	p->rxq[0].p = p->txq[0].p = p;
	p->rxq[0].mp = mp;
	p->features =
	    (mrg ? LR_VIRTIO_BIT(LR_VIRTIO_NET_F_MRG_RXBUF) : 0) |
	    (in_order ? LR_VIRTIO_BIT(LR_VIRTIO_F_IN_ORDER) : 0) |
	    (event_idx ? LR_VIRTIO_BIT(LR_VIRTIO_F_RING_EVENT_IDX) : 0) |
	    (packed ? LR_VIRTIO_BIT(LR_VIRTIO_F_RING_PACKED) : 0);
	if (p->wake_fd < 0 || ring_alloc(&p->rxq[0].vr, qsize) != 0 ||
	    ring_alloc(&p->txq[0].vr, qsize) != 0 ||
	    lr_shm_create(&p->shm, "virtio_user_fuzz", lr_vu_layout_(p), 0,
			  0) != 0) {
		lr_vu_fuzz_port_free_(p);
		return NULL;
	}
	lr_vu_rings_reset_(p);
	atomic_store(&p->rxq[0].up, 1);
	atomic_store(&p->txq[0].up, 1);
	return p;
}

uint8_t *
lr_vu_fuzz_region_(struct vu_port *p, size_t *len)
{
	*len = (size_t)p->shm.size;
	return p->shm.addr;
}

size_t
lr_vu_fuzz_ring_(struct vu_port *p, int tx, size_t *len)
{
	const struct vu_vring *vr = tx ? &p->txq[0].vr : &p->rxq[0].vr;

	*len = (size_t)(vr->sbufs_off + (uint64_t)vr->num * VU_SSIZE -
			vr->desc_off);
	return (size_t)vr->desc_off;
}

uint16_t
lr_vu_fuzz_rx_(struct vu_port *p, struct lr_mbuf **pkts, uint16_t n)
{
	return p->packed ? lr_vu_rx_burst_packed_(&p->rxq[0], pkts, n)
			 : lr_vu_rx_burst_(&p->rxq[0], pkts, n);
}

uint16_t
lr_vu_fuzz_tx_(struct vu_port *p, struct lr_mbuf **pkts, uint16_t n)
{
	return p->packed ? lr_vu_tx_burst_packed_(&p->txq[0], pkts, n)
			 : lr_vu_tx_burst_(&p->txq[0], pkts, n);
}

int
lr_vu_fuzz_bad_(struct vu_port *p)
{
	return atomic_load(&p->bad);
}

int
lr_vu_fuzz_up_(struct vu_port *p, int tx)
{
	return atomic_load(tx ? &p->txq[0].up : &p->rxq[0].up);
}

void
lr_vu_fuzz_port_free_(struct vu_port *p)
{
	struct vu_vring *vrs[2] = {&p->rxq[0].vr, &p->txq[0].vr};

	for (unsigned i = 0; i < 2; i++) {
		lr_unix_close_fds(&vrs[i]->kick_fd, 1);
		free(vrs[i]->free_ids);
	}
	lr_unix_close_fds(&p->wake_fd, 1);
	lr_shm_free(&p->shm);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
