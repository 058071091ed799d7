/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_vhost's probe: the devargs (iface=PATH the vhost-user socket,
 * queues=N queue pairs 1..8, default 1, client=0|1, default 0: we listen;
 * flush=auto|0|1, default auto: see vhost_rx_tx.c) parsed and checked,
 * each bad value refused with a message naming the port, the key and the
 * value; the port made; the driver itself.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "lr_errno.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_unix.h"
#include "vhost_private.h"

static const char *const vhost_keys[] = {"iface", "queues", "client", "flush",
					 NULL};

/* Parse and check the devargs of port name into a; 0 or -errno (logged). */
static int
vhost_parse_args(const char *name, const struct lr_devargs *args,
		 struct vhost_args *a)
{
	const char *v;
	int rc;

	a->iface = lr_devargs_get(args, "iface");
	if (a->iface == NULL || a->iface[0] == '\0') {
		LR_LOG(ERR, PMD,
		       "%s: iface: missing (iface=PATH, the vhost-user "
		       "socket)\n",
		       name);
		return -EINVAL;
	}
	if (strlen(a->iface) > lr_unix_path_max(0)) {
		LR_LOG(ERR, PMD,
		       "%s: iface: bad value '%s' (a path of at most %zu "
		       "characters)\n",
		       name, a->iface, lr_unix_path_max(0));
		return -ENAMETOOLONG;
	}
	rc = lr_devargs_get_uint(args, "queues", 1, 1, VH_MAXQP, &a->queues);
	if (rc == 0)
		rc = lr_devargs_get_bool(args, "client", 0, &a->client);
	if (rc < 0)
		return rc;
	v = lr_devargs_get(args, "flush");
	if (v == NULL || strcmp(v, "auto") == 0)
		a->flush = VH_FLUSH_AUTO;
	else if (strcmp(v, "1") == 0)
		a->flush = VH_FLUSH_ON;
	else if (strcmp(v, "0") == 0)
		a->flush = VH_FLUSH_OFF;
	else {
		LR_LOG(ERR, PMD, "%s: flush: bad value '%s' (auto, 0 or 1)\n",
		       name, v);
		return -EINVAL;
	}
	return 0;
}

/* A new port named name as a says, or NULL with lr_errno. */
static struct vh_port *
port_new(const char *name, const struct vhost_args *a)
{
	struct vh_port *p = aligned_alloc(
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
	pthread_mutex_init(&p->lk, NULL);
	p->name = name;
	snprintf(p->path, sizeof(p->path), "%s", a->iface);
	p->qp = (unsigned)a->queues;
	p->client = a->client;
	p->flush = a->flush;
	p->lis_fd = p->conn_fd = -1;
	for (unsigned i = 0; i < LR_VHOST_USER_MAX_REGIONS; i++)
		lr_shm_init(&p->shm[i]);
	for (unsigned i = 0; i < VH_NRING; i++) {
		p->ring[i].p = p;
		p->ring[i].kick_fd = p->ring[i].call_fd = -1;
	}
	return p;
}

void
lr_vhost_port_free_(struct vh_port *p)
{
	close(p->wake_fd);
	pthread_mutex_destroy(&p->lk);
	free(p);
}

/* Probe: make dev a vhost-user backend port as args say; 0 or -errno. */
static int
vhost_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	const char *name = dev->data->name;
	struct vhost_args a;
	struct vh_port *p;
	int rc;

	rc = vhost_parse_args(name, args, &a);
	if (rc < 0)
		return rc;
	p = port_new(name, &a);
	if (p == NULL) {
		LR_LOG(ERR, PMD, "%s: cannot make the port: %s\n", name,
		       lr_strerror(lr_errno));
		return -lr_errno;
	}
	p->dev = dev;
	dev->data->dev_private = p;
	dev->dev_ops = &lr_vhost_ops_;
	dev->rx_pkt_burst = lr_vhost_rx_burst_;
	dev->tx_pkt_burst = lr_vhost_tx_burst_;
	lr_eth_random_mac(&dev->data->mac_addr, dev->data->port_id, 0x7668);
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	LR_LOG(INFO, PMD, "%s: iface=%s queues=%u client=%d flush=%s\n", name,
	       p->path, p->qp, p->client,
	       p->flush == VH_FLUSH_AUTO ? "auto"
	       : p->flush == VH_FLUSH_ON ? "1"
					 : "0");
	return 0;
}

static struct lr_eth_driver vhost_driver = {
    .keys = vhost_keys,
    .usage = "iface=<socket path> queues=<1..8> client=<0|1> "
	     "flush=<auto|0|1>",
    .probe = vhost_probe,
};

LR_PMD_REGISTER(net_vhost, vhost_driver);
