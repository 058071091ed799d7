/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_xdp_socket.c - net_af_xdp's XSK sockets, from start to stop
 * (af_xdp_private.h says which file does what): the xdp_prog= program
 * loaded and unloaded, a queue's socket created on its UMEM (registered
 * by the first socket of a shared one), tuned and filled; at stop the tx
 * side drained, the socket closed and every frame the kernel held taken
 * back into the pool.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include "af_xdp_private.h"
#include "lr_cycles.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif

/* The text of a negative or positive error from libbpf (4000..4999),
 * libxdp (5000..5999) or the kernel. */
static const char *
axp_strerror(int err)
{
	static __thread char buf[128];

	if (err < 0)
		err = -err;
	if (err >= 4000 && err < 5000 &&
	    libbpf_strerror(err, buf, sizeof(buf)) == 0)
		return buf;
	if (err >= 5000 && err < 6000 &&
	    libxdp_strerror(err, buf, sizeof(buf)) == 0)
		return buf;
	return lr_strerror(err);
}

/* err as the negative errno ethdev's callers expect: libbpf's and libxdp's
 * own codes (ELF format, verifier, ...) become -EINVAL once logged. */
static int
axp_errno(int err)
{
	return err <= -4000 ? -EINVAL : err;
}

static const char *
xsk_error_hint(int err)
{
	switch (err) {
	case ENOBUFS:
	case ENOMEM:
		return " (locked memory: raise RLIMIT_MEMLOCK or grant "
		       "CAP_IPC_LOCK)";
	case EPERM:
	case EACCES:
		return " (needs CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF)";
	case EBUSY:
		return " (queue already bound by another AF_XDP socket or XDP "
		       "program in another mode)";
	case EOPNOTSUPP:
		return " (mode not supported by the interface's driver)";
	default:
		return "";
	}
}

/* Open and attach the xdp_prog= program (af_xdp_private.h). */
int
lr_af_xdp_load_custom_prog_(struct lr_eth_dev *dev)
{
	struct axp *p = dev->data->dev_private;
	enum xdp_attach_mode m = p->mode == MODE_SKB   ? XDP_MODE_SKB
				 : p->mode == MODE_DRV ? XDP_MODE_NATIVE
						       : XDP_MODE_UNSPEC;
	int err;

	p->prog = xdp_program__open_file(p->xdp_prog, NULL, NULL);
	err = (int)libxdp_get_error(p->prog);
	if (err) {
		LR_LOG(ERR, PMD, "%s: xdp_prog '%s': cannot open: %s\n",
		       dev->data->name, p->xdp_prog, axp_strerror(err));
		p->prog = NULL;
		return axp_errno(err);
	}
	err = xdp_program__attach(p->prog, p->ifindex, m, 0);
	if (err) {
		LR_LOG(ERR, PMD, "%s: xdp_prog '%s': cannot attach to %s: %s\n",
		       dev->data->name, p->xdp_prog, p->iface,
		       axp_strerror(err));
		goto close_prog;
	}
	p->xsks_map_fd = bpf_object__find_map_fd_by_name(
	    xdp_program__bpf_obj(p->prog), "xsks_map");
	if (p->xsks_map_fd < 0) {
		LR_LOG(ERR, PMD,
		       "%s: xdp_prog '%s': no map named 'xsks_map' (an XSKMAP "
		       "the program redirects into)\n",
		       dev->data->name, p->xdp_prog);
		err = -EINVAL;
		goto detach_prog;
	}
	return 0;

detach_prog:
	xdp_program__detach(p->prog, p->ifindex, m, 0);
close_prog:
	xdp_program__close(p->prog);
	p->prog = NULL;
	return axp_errno(err);
}

/* Detach and close the xdp_prog= program (af_xdp_private.h). */
void
lr_af_xdp_unload_custom_prog_(struct axp *p)
{
	enum xdp_attach_mode m = p->mode == MODE_SKB   ? XDP_MODE_SKB
				 : p->mode == MODE_DRV ? XDP_MODE_NATIVE
						       : XDP_MODE_UNSPEC;

	if (p->prog == NULL)
		return;
	xdp_program__detach(p->prog, p->ifindex, m, 0);
	xdp_program__close(p->prog);
	p->prog = NULL;
}

/* Which program serves the interface: a libxdp dispatcher or one program. */
static const char *
prog_kind(const struct axp *p)
{
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(p->ifindex);
	const char *kind;

	if (libxdp_get_error(mp))
		return "unknown";
	if (xdp_multiprog__is_legacy(mp))
		kind = p->prog ? "xdp_prog (single program)"
			       : "libxdp redirect (single program: libxdp "
				 "could not load its dispatcher)";
	else
		kind = p->prog ? "xdp_prog (libxdp dispatcher)"
			       : "libxdp redirect (libxdp dispatcher)";
	xdp_multiprog__close(mp);
	return kind;
}

/* Put back every frame marked in held; how many. */
static unsigned
take_back(struct axq *q, uint64_t *held)
{
	void *objs[CHUNK];
	unsigned n = 0, k = 0;

	for (unsigned f = 0; f < q->nb_frames; f++) {
		if (!(held[f >> 6] & (1ULL << (f & 63))))
			continue;
		held[f >> 6] &= ~(1ULL << (f & 63));
		objs[k++] = q->umem_mb + (size_t)f * FRAME;
		n++;
		if (k == CHUNK) {
			lr_mempool_put_bulk(q->mp, objs, k);
			k = 0;
		}
	}
	if (k != 0)
		lr_mempool_put_bulk(q->mp, objs, k);
	return n;
}

/* Ring sizes of a queue whose UMEM is shared (g): the registering socket
 * gives every sharer's fill and completion rings the largest sizes asked
 * (libxdp sizes them once); a later sharer fits its rings to them. 0, or
 * -EBUSY while the registering socket is parked on this very queue. */
static int
shared_ring_sizes(struct lr_eth_dev *dev, struct axq *q, struct shumem *g,
		  unsigned queue, struct xsk_umem_config *uc,
		  struct xsk_socket_config *sc)
{
	struct axp *p = dev->data->dev_private;

	if (g->umem == NULL) {
		g->fill_size = g->comp_size = 0;
		for (unsigned i = 0; i < SHARERS_MAX; i++) {
			const struct axq *m = g->member[i];

			if (m == NULL)
				continue;
			g->fill_size = LR_MAX(g->fill_size, 2 * m->nb_rx_desc);
			g->comp_size = LR_MAX(g->comp_size, m->nb_tx_desc);
		}
		uc->fill_size = g->fill_size;
		uc->comp_size = g->comp_size;
		return 0;
	}
	if (g->parked_ifindex == p->ifindex && g->parked_queue == queue) {
		LR_LOG(
		    ERR, PMD,
		    "%s: %s queue %u: still bound by the stopped socket that "
		    "registered shared UMEM '%s'; stop the other %u sharer "
		    "socket(s) first\n",
		    dev->data->name, p->iface, queue, g->mp->name, g->nb_open);
		return -EBUSY;
	}
	q->nb_rx_desc = LR_MIN(q->nb_rx_desc, g->fill_size / 2);
	q->nb_tx_desc = LR_MIN(q->nb_tx_desc, g->comp_size);
	sc->rx_size = q->nb_rx_desc;
	sc->tx_size = q->nb_tx_desc;
	return 0;
}

/* Register the UMEM *um if nobody has (*reg set then) and create the
 * queue's socket on it, retrying a bind the kernel still holds for a
 * closed socket; 0 or a negative libxdp error after logging. */
static int
xsk_create(struct lr_eth_dev *dev, struct axq *q, struct xsk_umem **um,
	   const struct xsk_umem_config *uc, const struct xsk_socket_config *sc,
	   unsigned queue, int *reg)
{
	struct axp *p = dev->data->dev_private;
	int err, tries = 0;

again:
	/* Fresh ring state: libxdp does not set every index of a ring it
	 * maps (the fill ring's cached producer), and a restarted queue
	 * would carry the last socket's on. */
	memset(&q->fq, 0, sizeof(q->fq));
	memset(&q->cq, 0, sizeof(q->cq));
	memset(&q->rx, 0, sizeof(q->rx));
	memset(&q->tx, 0, sizeof(q->tx));
	*reg = *um == NULL;
	if (*reg) {
		err = xsk_umem__create(um, q->umem_base, q->umem_len, &q->fq,
				       &q->cq, uc);
		if (err) {
			LR_LOG(ERR, PMD,
			       "%s: queue %u: UMEM of %zu KiB not registered: "
			       "%s%s\n",
			       dev->data->name, q->qid, q->umem_len >> 10,
			       axp_strerror(err), xsk_error_hint(-err));
			*um = NULL;
			*reg = 0;
			return err;
		}
		err = xsk_socket__create(&q->xsk, p->iface, queue, *um, &q->rx,
					 &q->tx, sc);
	} else {
		/* A later sharer: own fill and completion rings. */
		err = xsk_socket__create_shared(&q->xsk, p->iface, queue, *um,
						&q->rx, &q->tx, &q->fq, &q->cq,
						sc);
	}
	if (err == -EBUSY && tries++ < BIND_RETRIES) {
		/* The kernel releases a closed socket's hold on the queue
		 * from a work item: a restart may come before it ran. */
		if (*reg) {
			xsk_umem__delete(*um);
			*um = NULL;
		}
		usleep(BIND_RETRY_US);
		goto again;
	}
	if (err)
		LR_LOG(ERR, PMD,
		       "%s: %s queue %u: AF_XDP socket (mode %s): %s%s\n",
		       dev->data->name, p->iface, queue,
		       lr_af_xdp_mode_names_[p->mode], axp_strerror(err),
		       xsk_error_hint(-err));
	return err;
}

/* Socket options of an open queue: zero-copy or not, busy polling. */
static void
sock_tune(struct lr_eth_dev *dev, struct axq *q)
{
	struct axp *p = dev->data->dev_private;
	struct xdp_options opts = {0};
	socklen_t optlen = sizeof(opts);

	if (getsockopt(q->fd, SOL_XDP, XDP_OPTIONS, &opts, &optlen) == 0)
		q->zerocopy = !!(opts.flags & XDP_OPTIONS_ZEROCOPY);
	q->tx_kick_always = 0;
	__atomic_store_n(&q->busy, BUSY_OFF, __ATOMIC_RELAXED);
	if (p->busy_budget != 0) {
		int one = 1, usec = 20, budget = (int)p->busy_budget;

		if (setsockopt(q->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one,
			       sizeof(one)) ||
		    setsockopt(q->fd, SOL_SOCKET, SO_BUSY_POLL, &usec,
			       sizeof(usec)) ||
		    setsockopt(q->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget,
			       sizeof(budget)))
			LR_LOG(WARNING, PMD,
			       "%s: queue %u: busy polling not enabled: %s\n",
			       dev->data->name, q->qid, strerror(errno));
		else
			__atomic_store_n(&q->busy, BUSY_WAIT, __ATOMIC_RELAXED);
	}
}

/* A queue's socket is ready (reg: it registered the shared UMEM). */
static void
sock_opened(struct lr_eth_dev *dev, struct axq *q, int reg, unsigned queue)
{
	struct axp *p = dev->data->dev_private;
	struct shumem *g = q->sh;

	q->open = 1;
	if (g != NULL) {
		g->nb_open++;
		if (reg)
			g->owner = q;
	}
	LR_LOG(INFO, PMD,
	       "%s: %s queue %u: %s mode, %u UMEM frames of %u bytes, rings "
	       "rx/fill %u tx/comp %u, program: %s\n",
	       dev->data->name, p->iface, queue,
	       q->zerocopy ? "zero-copy" : "copy", q->nb_frames, FRAME,
	       q->nb_rx_desc, q->nb_tx_desc, prog_kind(p));
}

/* Open queue qid's socket (af_xdp_private.h). */
int
lr_af_xdp_sock_open_(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	struct shumem *g = q->sh;
	struct xsk_umem **um = g ? &g->umem : &q->umem;
	/* The fill ring has twice the slots of the frames kept in it: the
	 * kernel publishes how far it read the ring only when it next looks
	 * for more, so frames it already put on the rx ring (and that we
	 * replace) can still hold their slots. With one slot per frame a
	 * refill found the ring full and the kernel, the ring empty. */
	struct xsk_umem_config uc = {
	    .fill_size = 2 * q->nb_rx_desc,
	    .comp_size = q->nb_tx_desc,
	    .frame_size = FRAME,
	    .frame_headroom = q->buf_off,
	    .flags = 0,
	};
	struct xsk_socket_config sc = {
	    .rx_size = q->nb_rx_desc,
	    .tx_size = q->nb_tx_desc,
	    .libxdp_flags = p->prog ? XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD : 0,
	    .xdp_flags = p->mode == MODE_SKB   ? XDP_FLAGS_SKB_MODE
			 : p->mode == MODE_DRV ? XDP_FLAGS_DRV_MODE
					       : 0,
	    .bind_flags =
		XDP_USE_NEED_WAKEUP | (p->mode == MODE_SKB ? XDP_COPY : 0),
	};
	unsigned queue = p->start_queue + qid;
	int err, reg = 0;

	if (g != NULL) {
		err = shared_ring_sizes(dev, q, g, queue, &uc, &sc);
		if (err)
			return err;
	}
	err = xsk_create(dev, q, um, &uc, &sc, queue, &reg);
	if (err)
		goto delete_umem;
	if (p->prog != NULL) {
		err = xsk_socket__update_xskmap(q->xsk, p->xsks_map_fd);
		if (err) {
			LR_LOG(ERR, PMD, "%s: queue %u: xsks_map of '%s': %s\n",
			       dev->data->name, qid, p->xdp_prog,
			       axp_strerror(err));
			goto delete_socket;
		}
	}
	q->fd = q->tx_fd = xsk_socket__fd(q->xsk);
	sock_tune(dev, q);
	q->refill_due = 0;
	if (lr_af_xdp_refill_(q, q->nb_rx_desc) != q->nb_rx_desc) {
		LR_LOG(ERR, PMD,
		       "%s: queue %u: pool '%s' cannot fill %u descriptors\n",
		       dev->data->name, qid, q->mp->name, q->nb_rx_desc);
		err = -ENOMEM;
		goto delete_socket;
	}
	sock_opened(dev, q, reg, queue);
	return 0;

delete_socket:
	xsk_socket__delete(q->xsk);
	q->xsk = NULL;
delete_umem:
	if (reg) {
		xsk_umem__delete(*um);
		*um = NULL;
	}
	/* Frames put in the fill ring went nowhere: take them back. */
	take_back(q, q->rx_held);
	return axp_errno(err);
}

static unsigned
held_count(const struct axq *q, const uint64_t *held)
{
	unsigned n = 0;

	for (unsigned w = 0; w < (q->nb_frames + 63) / 64; w++)
		n += (unsigned)__builtin_popcountll(held[w]);
	return n;
}

/* Frames the kernel sockets of shared UMEM g hold (parked included). */
static unsigned
shumem_kernel_frames(const struct shumem *g)
{
	unsigned n = 0;

	for (unsigned i = 0; i < SHARERS_MAX; i++) {
		const struct axq *m = g->member[i];

		if (m != NULL)
			n += held_count(m, m->rx_held) +
			     held_count(m, m->tx_held);
	}
	if (g->parked_ifindex >= 0)
		for (unsigned w = 0; w < (g->nb_frames + 63) / 64; w++)
			n += (unsigned)__builtin_popcountll(g->parked[w]);
	return n;
}

/* Socket of shared queue q deleted (libxdp): when it registered the UMEM
 * and other sharers are open, its kernel socket stays bound (libxdp keeps
 * the registration fd): the frames it held stay the kernel's (parked).
 * When it was the last open socket, the registration goes and parked
 * frames return to the pool; how many returned. */
static unsigned
shumem_socket_closed(struct lr_eth_dev *dev, struct axq *q)
{
	struct shumem *g = q->sh;
	struct axp *p = dev->data->dev_private;
	unsigned n = 0;

	g->nb_open--;
	if (g->owner == q) {
		g->owner = NULL;
		if (g->nb_open != 0) {
			for (unsigned w = 0; w < (q->nb_frames + 63) / 64;
			     w++) {
				g->parked[w] |= q->rx_held[w] | q->tx_held[w];
				q->rx_held[w] = q->tx_held[w] = 0;
			}
			g->parked_ifindex = p->ifindex;
			g->parked_queue = p->start_queue + q->qid;
			snprintf(g->parked_name, sizeof(g->parked_name),
				 "%.40s queue %u", dev->data->name, q->qid);
			LR_LOG(INFO, PMD,
			       "%s: queue %u: its socket registered shared "
			       "UMEM '%s': it stays bound to %s queue %u "
			       "with %u frames until the other %u sharer "
			       "socket(s) stop\n",
			       dev->data->name, q->qid, g->mp->name, p->iface,
			       g->parked_queue, held_count(q, g->parked),
			       g->nb_open);
		}
	}
	if (g->nb_open == 0) {
		xsk_umem__delete(g->umem);
		g->umem = NULL;
		if (g->parked_ifindex >= 0) {
			n = take_back(q, g->parked);
			LR_LOG(INFO, PMD,
			       "shared UMEM '%s': registration closed, %u "
			       "frames back from %s\n",
			       g->mp->name, n, g->parked_name);
			g->parked_ifindex = -1;
		}
	}
	return n;
}

/* Drain and close queue qid's socket (af_xdp_private.h). */
void
lr_af_xdp_sock_close_(struct lr_eth_dev *dev, uint16_t qid)
{
	struct axp *p = dev->data->dev_private;
	struct axq *q = &p->q[qid];
	struct xdp_statistics st;
	socklen_t len = sizeof(st);
	uint64_t until = lr_get_tsc_cycles() +
			 lr_get_tsc_hz() / (1000000000ULL / TX_DRAIN_NS);
	unsigned back_rx, back_tx, in_use, others;

	if (!q->open)
		return;
	/* Let the kernel send what is queued. */
	while (held_count(q, q->tx_held) != 0 && lr_get_tsc_cycles() < until) {
		lr_af_xdp_tx_drain_(q);
	}
	if (getsockopt(q->fd, SOL_XDP, XDP_STATISTICS, &st, &len) == 0) {
		q->xstats_old.rx_dropped += st.rx_dropped;
		q->xstats_old.rx_invalid_descs += st.rx_invalid_descs;
		q->xstats_old.tx_invalid_descs += st.tx_invalid_descs;
		q->xstats_old.rx_ring_full += st.rx_ring_full;
		q->xstats_old.rx_fill_ring_empty_descs +=
		    st.rx_fill_ring_empty_descs;
		q->xstats_old.tx_ring_empty_descs += st.tx_ring_empty_descs;
	}
	xsk_socket__delete(q->xsk);
	q->xsk = NULL;
	q->open = 0;
	if (q->sh != NULL) {
		unsigned parked = shumem_socket_closed(dev, q);

		lr_counter_add(&q->recovered, parked);
	} else {
		xsk_umem__delete(q->umem);
		q->umem = NULL;
	}
	/* The kernel holds nothing now: what it had returns to the pool. */
	back_rx = take_back(q, q->rx_held);
	back_tx = take_back(q, q->tx_held);
	lr_counter_add(&q->recovered, back_rx + back_tx);
	q->refill_due = 0;
	in_use = lr_mempool_in_use_count(q->mp);
	if (q->sh == NULL) {
		LR_LOG(INFO, PMD,
		       "%s: queue %u stopped: %u frames back from the kernel "
		       "(%u rx side, %u tx side); UMEM frames: %u free, %u "
		       "held by the application, of %u; pool %s\n",
		       dev->data->name, qid, back_rx + back_tx, back_rx,
		       back_tx, q->nb_frames - in_use, in_use, q->nb_frames,
		       lr_mempool_validate(q->mp) == 0 ? "valid" : "INVALID");
		return;
	}
	others = shumem_kernel_frames(q->sh);
	LR_LOG(INFO, PMD,
	       "%s: queue %u stopped: %u frames back from the kernel (%u rx "
	       "side, %u tx side); shared UMEM frames: %u free, %u held by "
	       "the kernel (other sharers, parked socket), %u held by the "
	       "application, of %u; pool %s\n",
	       dev->data->name, qid, back_rx + back_tx, back_rx, back_tx,
	       q->nb_frames - in_use, others, in_use - others, q->nb_frames,
	       lr_mempool_validate(q->mp) == 0 ? "valid" : "INVALID");
}

/* Frames the kernel holds of queue q's UMEM: its own socket's, or every
 * sharer's and the parked socket's of a shared one. */
unsigned
lr_af_xdp_kernel_frames_(const struct axq *q)
{
	if (q->sh != NULL)
		return shumem_kernel_frames(q->sh);
	return held_count(q, q->rx_held) + held_count(q, q->tx_held);
}
