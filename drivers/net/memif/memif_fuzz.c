/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_memif's hooks for the fuzz targets (memif_fuzz.h;
 * test/fuzz/fuzz_memif.c and fuzz_memif_client.c): ports and connections
 * made without the ethdev layer or a control thread, driven through the
 * very functions the control thread runs (lr_memif_conn_msg_() on a
 * message, lr_memif_conn_event_() on a socket, lr_memif_port_poll_() for
 * its round) and the bursts of memif_rx_tx.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lr_eth_memif.h"
#include "lr_unix.h"
#include "memif_fuzz.h"
#include "memif_private.h"

struct mif_port *
lr_memif_fuzz_port_new_(uint32_t id, const char *secret, uint16_t nb_rxq,
			uint16_t nb_txq, struct lr_mempool *mp, int zrx)
{
	struct memif_args a = {.sock = "fuzz",
			       .zc = zrx,
			       .secret = secret,
			       .id = id,
			       .bsize = LR_ETH_MEMIF_DEFAULT_BSIZE,
			       .rsize = LR_ETH_MEMIF_DEFAULT_LOG2_RING,
			       .abstract = 1,
			       .sock_mode = LR_ETH_MEMIF_DEFAULT_SOCKET_MODE};
	struct mif_listener *l = calloc(1, sizeof(*l));
	struct mif_port *p;

	if (l == NULL)
		return NULL;
	if (zrx && lr_memif_zrx_register_() < 0)
		goto free_l;
	p = lr_memif_port_new_("net_memif_fuzz", &a);
	if (p == NULL)
		goto free_l;
	l->ep.kind = EP_LISTEN;
	l->fd = -1;
	l->abstract = 1;
	l->refs = 1;
	snprintf(l->path, sizeof(l->path), "%s", a.sock);
	p->nb_rxq = LR_MIN(nb_rxq, MIF_MAXQ);
	p->nb_txq = LR_MIN(nb_txq, MIF_MAXQ);
	for (unsigned q = 0; q < p->nb_rxq; q++)
		p->rxq[q].mp = mp;
	p->lis = l;
	p->started = 1;
	pthread_mutex_lock(&lr_memif_lock_);
	if (zrx && lr_memif_zrx_setup_(p, 0, p->nb_rxq) != 0) {
		lr_memif_zrx_teardown_(p);
		pthread_mutex_unlock(&lr_memif_lock_);
		goto free_p;
	}
	lr_memif_port_add_(p);
	pthread_mutex_unlock(&lr_memif_lock_);
	return p;
free_p:
	free(p);
free_l:
	free(l);
	return NULL;
}

void
lr_memif_fuzz_port_free_(struct mif_port *p)
{
	struct mif_listener *l = p->lis;

	pthread_mutex_lock(&lr_memif_lock_);
	lr_memif_port_disconnect_(p, NULL, BY_STOP);
	pthread_mutex_unlock(&lr_memif_lock_);
	lr_memif_port_free_(p);
	free(l);
}

struct mif_port *
lr_memif_fuzz_client_new_(int zc, uint16_t nb_rxq, uint16_t nb_txq,
			  unsigned log2, uint32_t bsize, struct lr_mempool *mp)
{
	struct memif_args a = {.sock = "fuzz-client",
			       .id = 0,
			       .bsize = bsize,
			       .rsize = log2,
			       .abstract = 1,
			       .zc = zc,
			       .role = "client"};
	struct mif_port *p = lr_memif_port_new_("net_memif_fuzz_client", &a);
	int ret = 0;

	if (p == NULL)
		return NULL;
	p->nb_rxq = LR_MIN(nb_rxq, MIF_MAXQ);
	p->nb_txq = LR_MIN(nb_txq, MIF_MAXQ);
	for (unsigned q = 0; q < p->nb_rxq; q++)
		p->rxq[q].mp = mp;
	/* not started: the control round never connects it by itself */
	pthread_mutex_lock(&lr_memif_lock_);
	if (zc)
		ret = lr_memif_zc_setup_(p, 0, p->nb_rxq, p->nb_txq);
	if (ret == 0)
		lr_memif_port_add_(p);
	pthread_mutex_unlock(&lr_memif_lock_);
	if (ret != 0) {
		free(p);
		return NULL;
	}
	return p;
}

struct mif_conn *
lr_memif_fuzz_client_connect_(struct mif_port *p, int *server_fd)
{
	struct mif_conn *c = calloc(1, sizeof(*c));
	int sv[2];

	if (c == NULL)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       0, sv) != 0) {
		free(c);
		return NULL;
	}
	c->ep.kind = EP_CONN;
	c->fd = sv[0];
	c->port = p;
	*server_fd = sv[1];
	pthread_mutex_lock(&lr_memif_lock_);
	p->conn = c;
	pthread_mutex_unlock(&lr_memif_lock_);
	return c;
}

void
lr_memif_fuzz_client_event_(struct mif_conn *c)
{
	pthread_mutex_lock(&lr_memif_lock_);
	if (!c->dead)
		lr_memif_conn_event_(c);
	pthread_mutex_unlock(&lr_memif_lock_);
}

const char *
lr_memif_fuzz_reason_(struct mif_port *p)
{
	return p->last_reason;
}

struct lr_mempool *
lr_memif_fuzz_zc_pool_(struct mif_port *p)
{
	return p->zc_mp;
}

struct mif_conn *
lr_memif_fuzz_accept_(struct mif_port *p)
{
	struct mif_conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->ep.kind = EP_CONN;
	c->fd = -1;
	c->lis = p->lis;
	return c;
}

int
lr_memif_fuzz_msg_(struct mif_conn *c, const struct mif_msg *m, size_t len,
		   int *fds, int nfds, struct mif_msg *reply, char *why,
		   size_t whylen)
{
	int ret;

	pthread_mutex_lock(&lr_memif_lock_);
	if (c->dead) {
		lr_unix_close_fds(fds, nfds > 0 ? (unsigned)nfds : 0);
		snprintf(why, whylen, "connection closed");
		ret = -ENOTCONN;
	} else if ((ret = lr_memif_conn_msg_(c, m, len, fds, nfds, reply)) !=
		   0) {
		snprintf(why, whylen, "%s", c->why.text);
		lr_memif_conn_fail_(c);
	} else if (reply->type == MIF_MSG_CONNECTED) {
		/* conn_answer() without the socket: the answer is sent */
		lr_memif_port_up_(c->port);
	}
	pthread_mutex_unlock(&lr_memif_lock_);
	return ret;
}

void
lr_memif_fuzz_conn_free_(struct mif_conn *c)
{
	pthread_mutex_lock(&lr_memif_lock_);
	if (!c->dead) {
		mif_refuse(&c->why, -ECONNRESET, "peer closed the connection");
		c->why.peer = 1;
		lr_memif_conn_fail_(c);
	}
	pthread_mutex_unlock(&lr_memif_lock_);
	free(c);
}

int
lr_memif_fuzz_up_(struct mif_port *p)
{
	int up;

	pthread_mutex_lock(&lr_memif_lock_);
	up = p->up;
	pthread_mutex_unlock(&lr_memif_lock_);
	return up;
}

void
lr_memif_fuzz_poll_(struct mif_port *p)
{
	pthread_mutex_lock(&lr_memif_lock_);
	lr_memif_port_poll_(p, lr_memif_now_ns_());
	pthread_mutex_unlock(&lr_memif_lock_);
}

/* p's rx (rx 1) or tx burst of its role and mode, without the software
 * offloads (the targets' frames ask for none); the two types are one. */
static lr_eth_rx_burst_t
fuzz_burst(const struct mif_port *p, int rx)
{
	lr_eth_rx_burst_t r;
	lr_eth_tx_burst_t t;

	lr_memif_bursts_(p, 0, &r, &t);
	return rx ? r : t;
}

uint16_t
lr_memif_fuzz_rx_(struct mif_port *p, uint16_t q, struct lr_mbuf **pkts,
		  uint16_t n)
{
	return fuzz_burst(p, 1)(&p->rxq[q], pkts, n);
}

uint16_t
lr_memif_fuzz_tx_(struct mif_port *p, uint16_t q, struct lr_mbuf **pkts,
		  uint16_t n)
{
	return fuzz_burst(p, 0)(&p->txq[q], pkts, n);
}
