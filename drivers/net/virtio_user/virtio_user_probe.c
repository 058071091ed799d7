/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_virtio_user's probe: the devargs, with DPDK's names and defaults
 * (path=SOCKET, server=0|1, queues=N, queue_size=N, mrg_rxbuf=0|1,
 * in_order=0|1, packed_vq=0|1; and ours: zero_copy=0|1, virtio_user_private.h),
 * each bad value refused with a message
 * naming the port, the key and the value; the port made; the driver.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>

#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "virtio_user_private.h"

static const char *const vu_keys[] = {
    "path",	 "server",   "queues",	  "queue_size",
    "mrg_rxbuf", "in_order", "packed_vq", "zero_copy", NULL,
};

/* Parse and check the devargs of port name into a; 0 or -EINVAL
 * (logged). */
static int
vu_parse_args(const char *name, const struct lr_devargs *args,
	      struct vu_args *a)
{
	int ret;

	a->path = lr_devargs_get(args, "path");
	if ((ret = lr_devargs_get_bool(args, "server", 0, &a->server)) < 0 ||
	    (ret = lr_devargs_get_bool(args, "mrg_rxbuf", 1, &a->mrg)) < 0 ||
	    (ret = lr_devargs_get_bool(args, "in_order", 0, &a->in_order)) <
		0 ||
	    (ret = lr_devargs_get_bool(args, "packed_vq", 0, &a->packed)) < 0 ||
	    (ret = lr_devargs_get_bool(args, "zero_copy", 1, &a->zero_copy)) <
		0 ||
	    (ret = lr_devargs_get_uint(args, "queues", 1, 1, VU_MAXQ,
				       &a->queues)) < 0 ||
	    (ret = lr_devargs_get_uint(args, "queue_size", VU_DEFAULT_QSIZE, 1,
				       LR_VIRTQ_MAX_SIZE, &a->qsize)) < 0)
		return ret;
	if (a->path == NULL || a->path[0] == '\0' ||
	    strlen(a->path) > lr_unix_path_max(0)) {
		LR_LOG(ERR, PMD,
		       "%s: path: bad value '%s' (expected the vhost-user "
		       "socket, 1..%zu characters)\n",
		       name, a->path != NULL ? a->path : "(none)",
		       lr_unix_path_max(0));
		return -EINVAL;
	}
	if (!lr_vring_num_valid((uint32_t)a->qsize)) {
		LR_LOG(ERR, PMD,
		       "%s: queue_size: bad value '%llu' (expected a power of "
		       "two in 1..%u)\n",
		       name, (unsigned long long)a->qsize, LR_VIRTQ_MAX_SIZE);
		return -EINVAL;
	}
	return 0;
}

/* A new port named name from a; NULL with lr_errno. */
static struct vu_port *
port_new(const char *name, const struct vu_args *a)
{
	struct vu_port *p = aligned_alloc(
	    LR_CACHE_LINE_SIZE, LR_ALIGN_CEIL(sizeof(*p), LR_CACHE_LINE_SIZE));

	if (p == NULL) {
		lr_errno = ENOMEM;
		return NULL;
	}
	memset(p, 0, sizeof(*p));
	p->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->wake_fd < 0) {
		lr_errno = errno;
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	p->name = name;
	snprintf(p->path, sizeof(p->path), "%s", a->path);
	p->server = a->server;
	p->queues = (uint16_t)a->queues;
	p->qsize = (uint32_t)a->qsize;
	p->want_mrg = a->mrg;
	p->want_in_order = a->in_order;
	p->packed = a->packed;
	p->zero_copy = a->zero_copy;
	p->lis = p->sock = -1;
	lr_shm_init(&p->shm);
	for (unsigned q = 0; q < VU_MAXQ; q++) {
		struct vu_queue *qs[2] = {&p->rxq[q], &p->txq[q]};

		for (unsigned d = 0; d < 2; d++) {
			qs[d]->p = p;
			qs[d]->qid = (uint16_t)q;
			qs[d]->vr.kick_fd = qs[d]->vr.call_fd = -1;
		}
	}
	return p;
}

/* Probe: make dev a virtio-user port as args say; 0 or -errno. */
static int
vu_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	const char *name = dev->data->name;
	struct vu_args a;
	struct vu_port *p;
	int ret;

	ret = vu_parse_args(name, args, &a);
	if (ret < 0)
		return ret;
	p = port_new(name, &a);
	if (p == NULL)
		return -lr_errno;
	p->dev = dev;
	dev->data->dev_private = p;
	dev->dev_ops = &lr_vu_ops_;
	dev->rx_pkt_burst = lr_vu_rx_burst_;
	dev->tx_pkt_burst = lr_vu_tx_burst_;
	lr_eth_random_mac(&dev->data->mac_addr, dev->data->port_id, 0x5649);
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	LR_LOG(INFO, PMD,
	       "%s: path=%s server=%d queues=%u queue_size=%u mrg_rxbuf=%d "
	       "in_order=%d packed_vq=%d zero_copy=%d\n",
	       name, p->path, p->server, p->queues, p->qsize, p->want_mrg,
	       p->want_in_order, p->packed, p->zero_copy);
	return 0;
}

static struct lr_eth_driver vu_driver = {
    .keys = vu_keys,
    .usage = "path=<vhost-user socket> server=<0|1> queues=<1..16> "
	     "queue_size=<power of two, 256> mrg_rxbuf=<0|1> "
	     "in_order=<0|1> packed_vq=<0|1> zero_copy=<0|1>",
    .probe = vu_probe,
};

LR_PMD_REGISTER(net_virtio_user, vu_driver);
