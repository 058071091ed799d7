/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_memif's probe: the devargs (lr_eth_memif.h lists them, with DPDK's
 * names and defaults) parsed and checked, each bad value refused with a
 * message naming the port, the key and the value; the port made and
 * registered with the control thread; the driver itself, and
 * lr_eth_memif_pool().
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_errno.h"
#include "lr_eth_memif.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_unix.h"
#include "memif_private.h"

static const char *const memif_keys[] = {
    "role",  "id",  "socket", "socket-abstract", "socket-mode", "bsize",
    "rsize", "mac", "secret", "zero-copy",	 NULL,
};

static int
parse_mac(const char *s, struct lr_ether_addr *mac)
{
	unsigned b[6];
	char end;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &end) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac->addr_bytes[i] = (uint8_t)b[i];
	return 0;
}

/* Read socket-mode (octal permission bits of the socket file a server
 * creates) into a->sock_mode; 0 or -EINVAL (logged). */
static int
socket_mode_get(const char *name, const struct lr_devargs *args,
		struct memif_args *a)
{
	const char *v = lr_devargs_get(args, "socket-mode");
	int ret = lr_devargs_get_mode(args, "socket-mode",
				      LR_ETH_MEMIF_DEFAULT_SOCKET_MODE,
				      &a->sock_mode);

	if (ret != 0 || v == NULL)
		return ret;
	if (a->abstract ||
	    (a->role != NULL && strcmp(a->role, "client") == 0)) {
		LR_LOG(ERR, PMD,
		       "%s: socket-mode: '%s' needs a server's socket file "
		       "(role=server, socket-abstract=no)\n",
		       name, v);
		return -EINVAL;
	}
	return 0;
}

/* Parse and check the devargs of port name into a; 0 or -errno (logged). */
static int
memif_parse_args(const char *name, const struct lr_devargs *args,
		 struct memif_args *a)
{
	int ret;

	a->role = lr_devargs_get(args, "role");
	a->sock = lr_devargs_get(args, "socket");
	a->mac = lr_devargs_get(args, "mac");
	a->secret = lr_devargs_get(args, "secret");
	if (a->role != NULL && strcmp(a->role, "server") != 0 &&
	    strcmp(a->role, "client") != 0) {
		LR_LOG(ERR, PMD,
		       "%s: role: bad value '%s' (expected server or client)\n",
		       name, a->role);
		return -EINVAL;
	}
	if ((ret = lr_devargs_get_uint(args, "id", 0, 0, UINT32_MAX, &a->id)) <
		0 ||
	    (ret =
		 lr_devargs_get_uint(args, "bsize", LR_ETH_MEMIF_DEFAULT_BSIZE,
				     64, 65535, &a->bsize)) < 0 ||
	    (ret = lr_devargs_get_uint(args, "rsize",
				       LR_ETH_MEMIF_DEFAULT_LOG2_RING, 1,
				       MIF_MAX_LOG2_RING, &a->rsize)) < 0 ||
	    (ret = lr_devargs_get_bool(args, "socket-abstract", 1,
				       &a->abstract)) < 0 ||
	    (ret = lr_devargs_get_bool(args, "zero-copy", 0, &a->zc)) < 0 ||
	    (ret = socket_mode_get(name, args, a)) < 0)
		return ret;
	if (a->zc && (a->role != NULL && strcmp(a->role, "client") == 0) &&
	    LR_ALIGN_CEIL(LR_PKTMBUF_HEADROOM + a->bsize, LR_CACHE_LINE_SIZE) >
		UINT16_MAX) {
		LR_LOG(ERR, PMD,
		       "%s: bsize: bad value '%llu' with zero-copy=yes (an "
		       "mbuf's %d bytes of headroom and the buffer must fit "
		       "in 65535 bytes)\n",
		       name, (unsigned long long)a->bsize, LR_PKTMBUF_HEADROOM);
		return -EINVAL;
	}
	if (a->sock == NULL)
		a->sock = LR_ETH_MEMIF_DEFAULT_SOCKET;
	if (a->sock[0] == '\0' ||
	    strlen(a->sock) >
		lr_unix_path_max(a->abstract ? LR_UNIX_ABSTRACT : 0)) {
		LR_LOG(ERR, PMD,
		       "%s: socket: bad value '%s' (expected a path of 1..%zu "
		       "characters)\n",
		       name, a->sock,
		       lr_unix_path_max(a->abstract ? LR_UNIX_ABSTRACT : 0));
		return -EINVAL;
	}
	if (a->secret != NULL && strlen(a->secret) > MIF_SECRET_SZ) {
		LR_LOG(ERR, PMD,
		       "%s: secret: bad value '%s' (at most %d characters)\n",
		       name, a->secret, MIF_SECRET_SZ);
		return -EINVAL;
	}
	return 0;
}

/* Fill the new port p named name from a, with no descriptors yet. */
static void
port_init(struct mif_port *p, const char *name, const struct memif_args *a)
{
	p->name = name;
	p->server = a->role == NULL || strcmp(a->role, "server") == 0;
	p->id = (uint32_t)a->id;
	p->abstract = a->abstract;
	p->sock_mode = a->sock_mode;
	p->bsize = (uint32_t)a->bsize;
	p->log2 = (unsigned)a->rsize;
	snprintf(p->path, sizeof(p->path), "%s", a->sock);
	snprintf(p->secret, sizeof(p->secret), "%s",
		 a->secret ? a->secret : "");
	for (unsigned i = 0; i < MIF_MAX_REGIONS; i++)
		lr_shm_init(&p->shm[i]);
	/* zero-copy: a client lends its buffers, a server receives in the
	 * client's */
	p->zc = p->server ? 0 : a->zc;
	p->zrx = p->server ? a->zc : 0;
	for (unsigned d = 0; d < 2; d++)
		for (unsigned i = 0; i < MIF_MAXQ; i++)
			p->ring_fd[d][i] = -1;
	for (unsigned q = 0; q < MIF_MAXQ; q++) {
		p->rxq[q].kick_fd = p->txq[q].kick_fd = -1;
		p->rxq[q].p = p->txq[q].p = p;
		p->rxq[q].qid = p->txq[q].qid = (uint16_t)q;
	}
}

/* Probe: make dev a memif port as args say; 0 or -errno (logged). */
static int
memif_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	const char *name = dev->data->name;
	struct memif_args a;
	struct mif_port *p;
	int ret;

	ret = memif_parse_args(name, args, &a);
	if (ret < 0)
		return ret;
	if (a.mac == NULL)
		lr_eth_random_mac(&dev->data->mac_addr, dev->data->port_id,
				  0x4d49);
	else if (parse_mac(a.mac, &dev->data->mac_addr) != 0) {
		LR_LOG(ERR, PMD,
		       "%s: mac: bad value '%s' (expected xx:xx:xx:xx:xx:xx)\n",
		       name, a.mac);
		return -EINVAL;
	}
	if (a.zc && (a.role == NULL || strcmp(a.role, "server") == 0)) {
		ret = lr_memif_zrx_register_();
		if (ret < 0) {
			LR_LOG(ERR, PMD,
			       "%s: cannot register mempool ops '%s': %s\n",
			       name, MIF_ZRX_OPS_NAME, lr_strerror(-ret));
			return ret;
		}
	}
	p = lr_memif_port_new_(name, &a);
	if (p == NULL)
		return -ENOMEM;
	p->dev = dev;
	dev->data->dev_private = p;
	dev->dev_ops = &lr_memif_ops_;
	lr_memif_bursts_(p, 1, &dev->rx_pkt_burst, &dev->tx_pkt_burst);
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	pthread_mutex_lock(&lr_memif_lock_);
	lr_memif_port_add_(p);
	pthread_mutex_unlock(&lr_memif_lock_);
	LR_LOG(INFO, PMD,
	       "%s: role=%s id=%u socket=%s%s bsize=%u rsize=%u%s%s\n", name,
	       p->server ? "server" : "client", p->id, p->abstract ? "@" : "",
	       p->path, p->bsize, p->log2, p->secret[0] ? " secret=..." : "",
	       p->zc ? " zero-copy=yes" : "");
	return 0;
}

struct mif_port *
lr_memif_port_new_(const char *name, const struct memif_args *a)
{
	struct mif_port *p = aligned_alloc(
	    LR_CACHE_LINE_SIZE, LR_ALIGN_CEIL(sizeof(*p), LR_CACHE_LINE_SIZE));

	if (p == NULL)
		return NULL;
	memset(p, 0, sizeof(*p));
	port_init(p, name, a);
	return p;
}

void
lr_memif_port_free_(struct mif_port *p)
{
	pthread_mutex_lock(&lr_memif_lock_);
	lr_memif_port_remove_(p);
	lr_memif_zc_teardown_(p);
	lr_memif_kept_reap_();
	lr_memif_zrx_teardown_(p);
	pthread_mutex_unlock(&lr_memif_lock_);
	free(p);
}

static struct lr_eth_driver memif_driver = {
    .keys = memif_keys,
    .usage = "role=<server|client> id=<n> socket=<path> "
	     "socket-abstract=<yes|no> socket-mode=<octal, 0600> "
	     "bsize=<64..65535> rsize=<1..14> "
	     "mac=<xx:xx:xx:xx:xx:xx> secret=<text> zero-copy=<yes|no>",
    .probe = memif_probe,
};

LR_PMD_REGISTER(net_memif, memif_driver);

struct lr_mempool *
lr_eth_memif_pool(uint16_t port_id)
{
	struct lr_eth_dev *dev = lr_eth_dev_get(port_id);
	struct mif_port *p;

	if (dev == NULL || dev->driver != &memif_driver) {
		lr_errno = ENODEV;
		return NULL;
	}
	p = dev->data->dev_private;
	if (p == NULL || p->zc_mp == NULL) {
		lr_errno = EINVAL;
		return NULL;
	}
	return p->zc_mp;
}
