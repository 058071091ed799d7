/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_packet_socket.c - net_af_packet's sockets and rings, the slow path
 * (af_packet_private.h says which file does what): a queue's sockets
 * opened and their rings mapped (and written once), bound to the
 * interface, joined into a fanout group, closed; promiscuous membership.
 */
#include <errno.h>
#include <net/if.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "af_packet_private.h"
#include "lr_errno.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"

/* ---------------------------------------------------------------------
 * Sockets and rings (slow path)
 */

/* Close an rx queue (af_packet_private.h). */
void
lr_af_packet_rxq_close_(struct afp_rxq *rxq)
{
	struct tpacket_stats_v3 st;
	socklen_t len = sizeof(st);

	if (rxq->fd < 0)
		return;
	if (getsockopt(rxq->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) ==
	    0) {
		lr_counter_add(&rxq->c.missed, st.tp_drops);
		lr_counter_add(&rxq->freeze_q, st.tp_freeze_q_cnt);
	}
	if (rxq->map != NULL)
		munmap(rxq->map, rxq->map_len);
	close(rxq->fd);
	free(rxq->frames);
	rxq->frames = NULL;
	rxq->map = NULL;
	rxq->fd = -1;
	rxq->bound = 0;
	rxq->cur = 0;
	rxq->left = 0;
	rxq->pkt = NULL;
}

/* Frames of txq's ring still waiting for the kernel to take them. */
static uint32_t
txq_waiting(const struct afp_txq *txq)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < txq->nb_frames; k++) {
		const struct tpacket2_hdr *h =
		    (const struct tpacket2_hdr *)txq->frames[k];

		n += __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) ==
		     TP_STATUS_SEND_REQUEST;
	}
	return n;
}

/* Before close: send what the ring still holds (the kernel may refuse it
 * for a while: its send buffer full), for at most about 100 ms; what is
 * left is said in a log line, never lost silently. */
static void
txq_flush(struct afp_txq *txq)
{
	uint32_t left;

	for (int i = 0; i < 100 && txq_waiting(txq) != 0; i++) {
		if (send(txq->fd, NULL, 0, MSG_DONTWAIT) < 0 &&
		    errno != EAGAIN && errno != ENOBUFS && errno != EINTR)
			break;
		usleep(1000);
	}
	left = txq_waiting(txq);
	if (left == 0)
		return;
	LR_LOG(WARNING, PMD,
	       "%s: tx queue %u: %u frames the kernel did not take from the "
	       "ring before close, dropped\n",
	       txq->port->name, txq->qid, left);
}

/* Close a tx queue (af_packet_private.h). */
void
lr_af_packet_txq_close_(struct afp_txq *txq)
{
	if (txq->fd < 0)
		return;
	if (txq->frames != NULL)
		txq_flush(txq);
	if (txq->map != NULL)
		munmap(txq->map, txq->map_len);
	close(txq->fd);
	free(txq->frames);
	txq->frames = NULL;
	txq->map = NULL;
	txq->fd = -1;
}

/* The ring geometry as text for error messages. */
static void
ring_desc(const struct afp_port *pp, char *buf, size_t len)
{
	uint32_t blocks = pp->framecnt / (pp->blocksz / pp->framesz);

	snprintf(buf, len,
		 "blocksz=%u framesz=%u framecnt=%u: %u blocks, %llu bytes",
		 pp->blocksz, pp->framesz, pp->framecnt, blocks,
		 (unsigned long long)blocks * pp->blocksz);
}

/* An unbound packet socket (protocol 0: receives nothing); fd or -errno. */
int
lr_af_packet_packet_socket_(const struct afp_port *pp, const char *what,
			    uint16_t q)
{
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0) {
		int err = errno;

		LR_LOG(ERR, PMD,
		       "%s: iface: cannot open a packet socket for %s queue %u "
		       "on '%s': %s%s\n",
		       pp->name, what, q, pp->iface, strerror(err),
		       err == EPERM || err == EACCES ? " (needs CAP_NET_RAW)"
						     : "");
		return -err;
	}
	return fd;
}

static int
set_int_opt(int fd, int opt, int val)
{
	return setsockopt(fd, SOL_PACKET, opt, &val, sizeof(val));
}

/* The addresses of the frames of a TPACKET_V2 receive ring; 0 or
 * -ENOMEM after logging. */
static int
rxq_frames_list(struct afp_port *pp, struct afp_rxq *rxq)
{
	uint32_t per_block = pp->blocksz / pp->framesz;

	rxq->frames = malloc(sizeof(*rxq->frames) * pp->framecnt);
	if (rxq->frames == NULL) {
		LR_LOG(ERR, PMD,
		       "%s: rx queue %u: no memory for %u frame addresses\n",
		       pp->name, rxq->qid, pp->framecnt);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < pp->framecnt; i++)
		rxq->frames[i] = rxq->map +
				 (size_t)(i / per_block) * pp->blocksz +
				 (size_t)(i % per_block) * pp->framesz;
	rxq->nb_frames = pp->framecnt;
	return 0;
}

/* Write to every page of a freshly mapped ring once. The kernel maps the
 * pages at mmap, but the first write to each still takes a page fault
 * (the shared mapping starts write-protected), measured at about 10 us
 * a page in this project's VMs: with 64 KiB frames every frame is its own
 * page, so until the ring had gone round once, each frame the port
 * received or sent paid it (a ping through lr-l2fwd, four frames a round
 * trip, about 40 us more than on a warm ring). Paid here once instead, at
 * creation: the socket has no traffic yet (receive sockets are bound at
 * start, transmit ones have sent nothing), so rewriting each page's first
 * byte changes nothing. */
static void
ring_prefault(uint8_t *map, size_t len)
{
	long pg = sysconf(_SC_PAGESIZE);
	size_t step = pg > 0 ? (size_t)pg : 4096;

	for (size_t off = 0; off < len; off += step) {
		volatile uint8_t *b = map + off;

		*b = *b;
	}
}

/* Ask for direction dir's ("rx", "tx") queue q ring on fd, socket option
 * opt (PACKET_RX_RING, PACKET_TX_RING) with len bytes of req, and map its
 * map_len bytes, prefaulted: 0 with *map set, or -errno after logging
 * (*map NULL). */
static int
ring_create_map(struct afp_port *pp, const char *dir, uint16_t q, int fd,
		int opt, const void *req, socklen_t len, size_t map_len,
		uint8_t **map)
{
	char desc[128];
	int err;

	if (setsockopt(fd, SOL_PACKET, opt, req, len) < 0) {
		err = errno;
		ring_desc(pp, desc, sizeof(desc));
		LR_LOG(ERR, PMD,
		       "%s: %s queue %u: cannot create the ring (%s): %s\n",
		       pp->name, dir, q, desc, strerror(err));
		return -err;
	}
	*map = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_POPULATE, fd, 0);
	if (*map == MAP_FAILED) {
		err = errno;
		*map = NULL;
		ring_desc(pp, desc, sizeof(desc));
		LR_LOG(ERR, PMD,
		       "%s: %s queue %u: cannot map the ring (%s): %s\n",
		       pp->name, dir, q, desc, strerror(err));
		return -err;
	}
	ring_prefault(*map, map_len);
	return 0;
}

/* Ask for rx queue q's ring on fd (TPACKET_V3 blocks or V2 frames) and map
 * it; 0 or -errno after logging. */
static int
rxq_ring_map(struct afp_port *pp, uint16_t q, int fd)
{
	struct afp_rxq *rxq = &pp->rxq[q];
	struct tpacket_req3 req;
	int err;

	memset(&req, 0, sizeof(req));
	req.tp_block_size = pp->blocksz;
	req.tp_frame_size = pp->framesz;
	req.tp_frame_nr = pp->framecnt;
	req.tp_block_nr = pp->framecnt / (pp->blocksz / pp->framesz);
	req.tp_retire_blk_tov = pp->tov_ms;
	rxq->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
	err = ring_create_map(
	    pp, "rx", q, fd, PACKET_RX_RING, &req,
	    pp->tpv2 ? sizeof(struct tpacket_req) : sizeof(req), rxq->map_len,
	    &rxq->map);
	if (err < 0)
		return err;
	rxq->block_size = req.tp_block_size;
	rxq->nb_blocks = req.tp_block_nr;
	if (pp->tpv2 && rxq_frames_list(pp, rxq) < 0) {
		munmap(rxq->map, rxq->map_len);
		rxq->map = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* Set fd's TPACKET_V<version> and, with vnet=1, PACKET_VNET_HDR for
 * direction dir's ("rx", "tx") queue q; 0 or -errno after logging. */
static int
sock_version_vnet(struct afp_port *pp, const char *dir, uint16_t q, int fd,
		  int version)
{
	int err;

	if (set_int_opt(fd, PACKET_VERSION,
			version == 2 ? TPACKET_V2 : TPACKET_V3) < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: %s queue %u: TPACKET_V%d on '%s': %s\n",
		       pp->name, dir, q, version, pp->iface, strerror(err));
		return -err;
	}
	if (pp->vnet && set_int_opt(fd, PACKET_VNET_HDR, 1) < 0) {
		err = errno;
		LR_LOG(ERR, PMD,
		       "%s: vnet: %s queue %u: PACKET_VNET_HDR on '%s': %s "
		       "(vnet=0 turns the offloads off)\n",
		       pp->name, dir, q, pp->iface, strerror(err));
		return -err;
	}
	return 0;
}

/* Bind fd, direction dir's ("rx", "tx") queue q socket, to the interface
 * for protocol proto (network order); 0 or -errno after logging. */
static int
sock_bind(struct afp_port *pp, const char *dir, uint16_t q, int fd,
	  uint16_t proto)
{
	struct sockaddr_ll sll;
	int err;

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = proto;
	sll.sll_ifindex = pp->ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: %s queue %u: cannot bind to '%s': %s\n",
		       pp->name, dir, q, pp->iface, strerror(err));
		return -err;
	}
	return 0;
}

/* Create rx queue q's socket and ring, not bound yet; 0 or -errno. */
int
lr_af_packet_rxq_open_(struct afp_port *pp, uint16_t q)
{
	struct afp_rxq *rxq = &pp->rxq[q];
	int fd, err;

	fd = lr_af_packet_packet_socket_(pp, "rx", q);
	if (fd < 0)
		return fd;
	err = -sock_version_vnet(pp, "rx", q, fd, pp->tpv2 ? 2 : 3);
	if (err > 0)
		goto close_fd;
	rxq->vnet = (uint8_t)pp->vnet;
	err = -rxq_ring_map(pp, q, fd);
	if (err > 0)
		goto close_fd;
	rxq->fd = fd;
	rxq->cur = 0;
	rxq->left = 0;
	rxq->pkt = NULL;
	return 0;

close_fd:
	close(fd);
	return -err;
}

/* Set tx queue q's socket options: TPACKET_V2, PACKET_LOSS and (if the
 * kernel has it) PACKET_QDISC_BYPASS; 0 or -errno after logging. */
static int
txq_sock_opts(struct afp_port *pp, uint16_t q, int fd)
{
	int err;

	err = sock_version_vnet(pp, "tx", q, fd, 2);
	if (err < 0)
		return err;
	/* A malformed frame is dropped instead of stopping the ring. */
	if (set_int_opt(fd, PACKET_LOSS, 1) < 0) {
		err = errno;
		LR_LOG(ERR, PMD, "%s: tx queue %u: PACKET_LOSS: %s\n", pp->name,
		       q, strerror(err));
		return -err;
	}
	if (set_int_opt(fd, PACKET_QDISC_BYPASS, 1) < 0)
		LR_LOG(WARNING, PMD,
		       "%s: tx queue %u: no PACKET_QDISC_BYPASS (%s): frames "
		       "go through the qdisc\n",
		       pp->name, q, strerror(errno));
	return 0;
}

/* Create and map tx queue q's ring on fd and list its frame addresses;
 * 0 or -errno after logging (nothing left mapped or allocated). */
static int
txq_ring_map(struct afp_port *pp, uint16_t q, int fd)
{
	struct afp_txq *txq = &pp->txq[q];
	uint32_t per_block = pp->blocksz / pp->framesz;
	struct tpacket_req req;
	int err;

	memset(&req, 0, sizeof(req));
	req.tp_block_size = pp->blocksz;
	req.tp_frame_size = pp->framesz;
	req.tp_frame_nr = pp->framecnt;
	req.tp_block_nr = pp->framecnt / per_block;
	txq->map_len = (size_t)req.tp_block_size * req.tp_block_nr;
	err = ring_create_map(pp, "tx", q, fd, PACKET_TX_RING, &req,
			      sizeof(req), txq->map_len, &txq->map);
	if (err < 0)
		return err;
	txq->frames = malloc(sizeof(*txq->frames) * req.tp_frame_nr);
	if (txq->frames == NULL) {
		LR_LOG(ERR, PMD,
		       "%s: tx queue %u: no memory for %u frame addresses\n",
		       pp->name, q, req.tp_frame_nr);
		goto unmap_ring;
	}
	for (uint32_t i = 0; i < req.tp_frame_nr; i++)
		txq->frames[i] = txq->map +
				 (size_t)(i / per_block) * pp->blocksz +
				 (size_t)(i % per_block) * pp->framesz;
	return 0;

unmap_ring:
	munmap(txq->map, txq->map_len);
	txq->map = NULL;
	return -ENOMEM;
}

/* Create tx queue q's socket, bound to the interface with protocol 0, and
 * its ring; 0 or -errno. */
int
lr_af_packet_txq_open_(struct afp_port *pp, uint16_t q)
{
	struct afp_txq *txq = &pp->txq[q];
	int fd, err;

	fd = lr_af_packet_packet_socket_(pp, "tx", q);
	if (fd < 0)
		return fd;
	err = txq_sock_opts(pp, q, fd);
	if (err < 0)
		goto close_fd;
	err = txq_ring_map(pp, q, fd);
	if (err < 0)
		goto close_fd;
	err = sock_bind(pp, "tx", q, fd, 0);
	if (err < 0)
		goto free_ring;
	txq->fd = fd;
	txq->nb_frames = pp->framecnt;
	txq->head = 0;
	txq->vnet_len = pp->vnet ? AFP_VNET_HLEN : 0;
	txq->room = pp->framesz - (uint32_t)AFP_TX_DATA_OFF;
	return 0;

free_ring:
	free(txq->frames);
	txq->frames = NULL;
	munmap(txq->map, txq->map_len);
	txq->map = NULL;
close_fd:
	close(fd);
	return err;
}

/* Bind rx queue q's socket to the interface: it receives from now on. */
int
lr_af_packet_rxq_bind_(struct afp_port *pp, uint16_t q)
{
	struct afp_rxq *rxq = &pp->rxq[q];
	int err;

	err = sock_bind(pp, "rx", q, rxq->fd, htons(ETH_P_ALL));
	if (err < 0)
		return err;
	rxq->bound = 1;
	if (set_int_opt(rxq->fd, PACKET_IGNORE_OUTGOING, 1) < 0)
		LR_LOG(WARNING, PMD,
		       "%s: rx queue %u: no PACKET_IGNORE_OUTGOING (%s): "
		       "frames the host sends on '%s' are received too\n",
		       pp->name, q, strerror(errno), pp->iface);
	return 0;
}

/* Process-wide counter for fanout ids chosen without the kernel's help. */
static atomic_uint fanout_seq;

/* Join the first n rx sockets into one PACKET_FANOUT_HASH group; 0 or
 * -errno. */
int
lr_af_packet_fanout_join_(struct afp_port *pp, uint16_t n)
{
	uint32_t val;
	socklen_t len = sizeof(val);
	int err = 0;

	/* Ask the kernel for an id no group uses. */
	val = (uint32_t)(PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_UNIQUEID)
	      << 16;
	if (setsockopt(pp->rxq[0].fd, SOL_PACKET, PACKET_FANOUT, &val,
		       sizeof(val)) == 0 &&
	    getsockopt(pp->rxq[0].fd, SOL_PACKET, PACKET_FANOUT, &val, &len) ==
		0) {
		pp->fanout_id = (uint16_t)(val & 0xffff);
	} else {
		/* Older kernel: an id of our own, retried while refused. */
		for (int tries = 0; tries < 64; tries++) {
			uint32_t seq = atomic_fetch_add(&fanout_seq, 1);
			uint32_t id = (seq * 0x9e3779b1u) ^
				      ((uint32_t)getpid() << 8) ^
				      (uint32_t)pp->ifindex;

			id = (id ^ (id >> 16)) & 0xffff;
			val = id | (uint32_t)PACKET_FANOUT_HASH << 16;
			if (setsockopt(pp->rxq[0].fd, SOL_PACKET, PACKET_FANOUT,
				       &val, sizeof(val)) == 0) {
				pp->fanout_id = (uint16_t)id;
				err = 0;
				break;
			}
			err = errno;
			if (err != EINVAL && err != EEXIST && err != EBUSY &&
			    err != ENOSPC)
				break;
		}
		if (err != 0) {
			LR_LOG(ERR, PMD,
			       "%s: qpairs: cannot create a fanout group on "
			       "'%s': %s\n",
			       pp->name, pp->iface, strerror(err));
			return -err;
		}
	}
	val = pp->fanout_id | (uint32_t)PACKET_FANOUT_HASH << 16;
	for (uint16_t q = 1; q < n; q++) {
		if (setsockopt(pp->rxq[q].fd, SOL_PACKET, PACKET_FANOUT, &val,
			       sizeof(val)) < 0) {
			err = errno;
			LR_LOG(ERR, PMD,
			       "%s: rx queue %u: cannot join fanout group %u "
			       "on '%s': %s\n",
			       pp->name, q, pp->fanout_id, pp->iface,
			       strerror(err));
			return -err;
		}
	}
	LR_LOG(DEBUG, PMD, "%s: %u rx queues in fanout group %u\n", pp->name, n,
	       pp->fanout_id);
	return 0;
}

/* Promiscuous membership on or off (af_packet_private.h). */
int
lr_af_packet_promisc_set_(struct afp_port *pp, int on)
{
	struct packet_mreq mr;

	if (pp->promisc == on)
		return 0;
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = pp->ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	if (setsockopt(pp->ctl_fd, SOL_PACKET,
		       on ? PACKET_ADD_MEMBERSHIP : PACKET_DROP_MEMBERSHIP, &mr,
		       sizeof(mr)) < 0) {
		int err = errno;

		LR_LOG(ERR, PMD, "%s: promiscuous %s on '%s': %s\n", pp->name,
		       on ? "on" : "off", pp->iface, strerror(err));
		return -err;
	}
	pp->promisc = on;
	return 0;
}

/* An interface ioctl on the control socket; 0 or -errno. */
int
lr_af_packet_iface_ioctl_(const struct afp_port *pp, unsigned long req,
			  struct ifreq *ifr)
{
	memset(ifr->ifr_name, 0, sizeof(ifr->ifr_name));
	memcpy(ifr->ifr_name, pp->iface, strlen(pp->iface));
	return ioctl(pp->ctl_fd, req, ifr) < 0 ? -errno : 0;
}
