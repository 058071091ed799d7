/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_packet_rx_tx.c - net_af_packet's datapath (af_packet_private.h says
 * which file does what, what a packet costs and the offloads): frames
 * copied out of the receive ring into mbufs, mbufs copied into the
 * transmit ring, one send() a burst.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include "af_packet_private.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_net.h"

/* ---------------------------------------------------------------------
 * Receive
 */

/* Hand the current block back to the kernel and move to the next. */
static __lr_always_inline void
rx_block_done(struct afp_rxq *rxq, struct tpacket_block_desc *bd)
{
	/* the block handed back is the one we read */
	LR_ASSERT(rxq->cur < rxq->nb_blocks);
	__atomic_store_n(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL,
			 __ATOMIC_RELEASE);
	if (++rxq->cur == rxq->nb_blocks)
		rxq->cur = 0;
	rxq->left = 0;
}

/* What the receive paths need of a ring frame, TPACKET_V2 or V3. */
struct afp_frame {
	const uint8_t *data; /* MAC header */
	uint32_t snaplen;
	uint32_t len;
	uint32_t status;
	uint16_t vlan_tci;
	uint16_t vlan_tpid;
};

static __lr_always_inline void
frame_v3(struct afp_frame *f, const struct tpacket3_hdr *h)
{
	f->data = (const uint8_t *)h + h->tp_mac;
	f->snaplen = h->tp_snaplen;
	f->len = h->tp_len;
	f->status = h->tp_status;
	f->vlan_tci = (uint16_t)h->hv1.tp_vlan_tci;
	f->vlan_tpid = (uint16_t)h->hv1.tp_vlan_tpid;
}

static __lr_always_inline void
frame_v2(struct afp_frame *f, const struct tpacket2_hdr *h)
{
	f->data = (const uint8_t *)h + h->tp_mac;
	f->snaplen = h->tp_snaplen;
	f->len = h->tp_len;
	f->status = h->tp_status;
	f->vlan_tci = h->tp_vlan_tci;
	f->vlan_tpid = h->tp_vlan_tpid;
}

/* The unusual packets: longer than the mbuf (chain), VLAN tag stripped by
 * the kernel (put back), cut to the frame size or shorter than an Ethernet
 * header (dropped). 0 if m now holds the packet, -1 to drop it (m still
 * owned by the caller, empty). */
static __lr_cold int
rx_copy_slow(struct afp_rxq *rxq, struct lr_mbuf *m, const struct afp_frame *h)
{
	const uint8_t *data = h->data;
	uint32_t len = h->snaplen, total = len;
	uint8_t tag[ETH_HLEN + AFP_VLAN_HLEN];

	if (h->snaplen != h->len) {
		lr_counter_add(&rxq->truncated, 1);
		lr_counter_add(&rxq->c.errors, 1);
		return -1;
	}
	if (len < ETH_HLEN) {
		lr_counter_add(&rxq->runts, 1);
		lr_counter_add(&rxq->c.errors, 1);
		return -1;
	}
	if ((h->status & TP_STATUS_VLAN_VALID) && len >= ETH_HLEN) {
		/* Rebuild the 802.1Q header the kernel took off. */
		uint16_t tpid = (h->status & TP_STATUS_VLAN_TPID_VALID)
				    ? h->vlan_tpid
				    : ETH_P_8021Q;
		uint16_t be_tpid = htons(tpid);
		uint16_t be_tci = htons(h->vlan_tci);

		memcpy(tag, data, 2 * ETH_ALEN);
		memcpy(tag + 2 * ETH_ALEN, &be_tpid, 2);
		memcpy(tag + 2 * ETH_ALEN + 2, &be_tci, 2);
		memcpy(tag + 2 * ETH_ALEN + 4, data + 2 * ETH_ALEN, 2);
		total += AFP_VLAN_HLEN;
	}
	m->pkt_len = 0;
	m->data_len = 0;
	/* The (possibly rebuilt) header, then the rest, segment by segment. */
	if ((total == len
		 ? lr_pktmbuf_append_copy(m, rxq->mp, data, len)
		 : lr_pktmbuf_append_copy(m, rxq->mp, tag, sizeof(tag)) ||
		       lr_pktmbuf_append_copy(m, rxq->mp, data + ETH_HLEN,
					      len - ETH_HLEN)) != 0) {
		lr_counter_add(&rxq->c.nombuf, 1);
		lr_pktmbuf_free(m->next);
		m->next = NULL;
		m->nb_segs = 1;
		m->data_len = 0;
		m->pkt_len = 0;
		return -1;
	}
	return 0;
}

/* The offloads of a frame's virtio_net_hdr into m (csum_start shifted
 * past a VLAN tag put back); 0, or -1 to drop it (a GSO type this port
 * does not carry). */
static __lr_cold int
rx_vnet(struct afp_rxq *rxq, struct lr_mbuf *m, const struct afp_frame *h,
	const struct lr_net_vnet_hdr *vh)
{
	uint32_t shift = (h->status & TP_STATUS_VLAN_VALID) ? AFP_VLAN_HLEN : 0;

	if (lr_likely(lr_net_vnet_rx(m, vh, shift) == 0))
		return 0;
	lr_counter_add(&rxq->gso_unsupported, 1);
	lr_counter_add(&rxq->c.errors, 1);
	return -1;
}

/* m back to an empty one-segment mbuf, to take the next frame. */
static __lr_cold void
rx_mbuf_empty(struct lr_mbuf *m)
{
	lr_pktmbuf_free(m->next);
	m->next = NULL;
	m->nb_segs = 1;
	m->data_len = 0;
	m->pkt_len = 0;
	m->ol_flags = 0;
}

/* The virtio_net_hdr of frame h, when the socket has them: one load of
 * its flags and GSO type, the offload work out of line. 0 or -1 (drop). */
static __lr_always_inline int
rx_offloads(struct afp_rxq *rxq, struct lr_mbuf *m, const struct afp_frame *h)
{
	const struct lr_net_vnet_hdr *vh;

	if (!rxq->vnet)
		return 0;
	vh = (const struct lr_net_vnet_hdr *)(h->data - AFP_VNET_HLEN);
	if (lr_likely((vh->flags | vh->gso_type) == 0))
		return 0;
	return rx_vnet(rxq, m, h, vh);
}

/* Send what a cut-short send left in the sibling transmit ring: without
 * it, frames refused at the last burst of a flow (the socket's send
 * buffer full) would wait for a burst that may never come and be lost at
 * close. Pending stays set until a send finds nothing left; racing a
 * transmit burst on another thread costs at most a delay to that burst. */
static __lr_always_inline void
sibling_kick(struct afp_rxq *rxq)
{
	struct afp_txq *s = rxq->sibling;

	if (lr_unlikely(__atomic_load_n(&s->kick_pending, __ATOMIC_RELAXED)) &&
	    send(s->fd, NULL, 0, MSG_DONTWAIT) == 0)
		__atomic_store_n(&s->kick_pending, 0, __ATOMIC_RELAXED);
}

/* Receive burst, tpacket=v3 (af_packet_private.h). */
uint16_t
lr_af_packet_rx_burst_(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct afp_rxq *rxq = q;
	uint64_t bytes = 0;
	uint16_t n = 0;

	sibling_kick(rxq);
	while (n < nb_pkts) {
		struct tpacket_block_desc *bd =
		    (struct tpacket_block_desc *)(rxq->map +
						  (size_t)rxq->cur *
						      rxq->block_size);
		uint32_t k, got;

		if (rxq->left == 0) {
			if (!(__atomic_load_n(&bd->hdr.bh1.block_status,
					      __ATOMIC_ACQUIRE) &
			      TP_STATUS_USER))
				break;
			rxq->left = bd->hdr.bh1.num_pkts;
			rxq->pkt =
			    (uint8_t *)bd + bd->hdr.bh1.offset_to_first_pkt;
			if (lr_unlikely(rxq->left == 0)) {
				rx_block_done(rxq, bd);
				continue;
			}
		}
		k = LR_MIN((uint32_t)(nb_pkts - n), rxq->left);
		if (lr_unlikely(lr_pktmbuf_alloc_bulk(rxq->mp, pkts + n, k) !=
				0)) {
			lr_counter_add(&rxq->c.nombuf, 1);
			break;
		}
		got = 0;
		for (uint32_t i = 0; i < k; i++) {
			const struct tpacket3_hdr *h =
			    (const struct tpacket3_hdr *)rxq->pkt;
			struct lr_mbuf *m = pkts[n + got];
			uint32_t len = h->tp_snaplen;
			struct afp_frame f;

			frame_v3(&f, h);

			if (lr_likely(len <= lr_pktmbuf_tailroom(m) &&
				      len >= ETH_HLEN && len == h->tp_len &&
				      !(h->tp_status & TP_STATUS_VLAN_VALID))) {
				memcpy(lr_pktmbuf_mtod(m, uint8_t *),
				       (const uint8_t *)h + h->tp_mac, len);
				m->data_len = (uint16_t)len;
				m->pkt_len = len;
			} else if (rx_copy_slow(rxq, m, &f) != 0) {
				/* Dropped: m is reused for the next one. */
				rxq->pkt += h->tp_next_offset;
				continue;
			}
			if (lr_unlikely(rx_offloads(rxq, m, &f) != 0)) {
				rx_mbuf_empty(m);
				rxq->pkt += h->tp_next_offset;
				continue;
			}
			m->port = rxq->port_id;
			bytes += m->pkt_len;
			got++;
			rxq->pkt += h->tp_next_offset;
		}
		if (lr_unlikely(got != k))
			lr_pktmbuf_free_bulk(pkts + n + got, k - got);
		n = (uint16_t)(n + got);
		rxq->left -= k;
		if (rxq->left == 0)
			rx_block_done(rxq, bd);
	}
	lr_counter_add(&rxq->c.packets, n);
	lr_counter_add(&rxq->c.bytes, bytes);
	return n;
}

/* tpacket=v2: one ring frame per packet, handed over by the kernel as soon
 * as it is written (no block timeout); one mbuf alloc per packet. */
uint16_t
lr_af_packet_rx_burst_v2_(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct afp_rxq *rxq = q;
	uint64_t bytes = 0;
	uint16_t n = 0;

	sibling_kick(rxq);
	LR_ASSERT(rxq->cur < rxq->nb_frames);
	while (n < nb_pkts) {
		struct tpacket2_hdr *h =
		    (struct tpacket2_hdr *)rxq->frames[rxq->cur];
		struct afp_frame f;
		struct lr_mbuf *m;

		if (!(__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) &
		      TP_STATUS_USER))
			break;
		m = lr_pktmbuf_alloc(rxq->mp);
		if (lr_unlikely(m == NULL)) {
			lr_counter_add(&rxq->c.nombuf, 1);
			break;
		}
		frame_v2(&f, h);
		if (lr_likely(f.snaplen <= lr_pktmbuf_tailroom(m) &&
			      f.snaplen >= ETH_HLEN && f.snaplen == f.len &&
			      !(f.status & TP_STATUS_VLAN_VALID))) {
			memcpy(lr_pktmbuf_mtod(m, uint8_t *), f.data,
			       f.snaplen);
			m->data_len = (uint16_t)f.snaplen;
			m->pkt_len = f.snaplen;
		} else if (rx_copy_slow(rxq, m, &f) != 0) {
			lr_pktmbuf_free(m);
			m = NULL;
		}
		if (m != NULL && lr_unlikely(rx_offloads(rxq, m, &f) != 0)) {
			lr_pktmbuf_free(m);
			m = NULL;
		}
		__atomic_store_n(&h->tp_status, TP_STATUS_KERNEL,
				 __ATOMIC_RELEASE);
		if (++rxq->cur == rxq->nb_frames)
			rxq->cur = 0;
		if (m == NULL)
			continue;
		m->port = rxq->port_id;
		bytes += m->pkt_len;
		pkts[n++] = m;
	}
	lr_counter_add(&rxq->c.packets, n);
	lr_counter_add(&rxq->c.bytes, bytes);
	return n;
}

/* ---------------------------------------------------------------------
 * Transmit
 */

static __lr_cold void
tx_kick_failed(struct afp_txq *txq, int err)
{
	if (err == EAGAIN || err == ENOBUFS || err == EINTR)
		return;
	lr_counter_add(&txq->send_errors, 1);
	if (txq->send_errors == 1)
		LR_LOG(ERR, PMD, "%s: tx queue %u: send on '%s': %s\n",
		       txq->port->name, txq->qid, txq->port->iface,
		       strerror(err));
}

/* One system call for every frame the ring holds to send: also when a
 * burst found the ring full, so frames left by an earlier EAGAIN go out
 * (af_packet_private.h). The kernel takes frames in ring order and stops
 * at the first it cannot take: if the last one written is still waiting,
 * the next receive poll of the port sends again. */
void
lr_af_packet_tx_kick_(struct afp_txq *txq)
{
	uint32_t last = (txq->head == 0 ? txq->nb_frames : txq->head) - 1;
	const struct tpacket2_hdr *h =
	    (const struct tpacket2_hdr *)txq->frames[last];

	if (send(txq->fd, NULL, 0, MSG_DONTWAIT) < 0)
		tx_kick_failed(txq, errno);
	__atomic_store_n(&txq->kick_pending,
			 __atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) ==
			     TP_STATUS_SEND_REQUEST,
			 __ATOMIC_RELAXED);
}

/* Whether the n ring frames from head on are all free. */
static int
tx_frames_free(const struct afp_txq *txq, uint32_t head, uint32_t n)
{
	for (uint32_t k = 0; k < n;
	     k++, head = head + 1 == txq->nb_frames ? 0 : head + 1) {
		struct tpacket2_hdr *h =
		    (struct tpacket2_hdr *)txq->frames[head];

		if (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) !=
		    TP_STATUS_AVAILABLE)
			return 0;
	}
	return 1;
}

/* Put m into the free frame at txq->head with virtio_net_hdr vh (when the
 * socket has them) and hand it to the kernel. */
static void
tx_frame_put(struct afp_txq *txq, const struct lr_mbuf *m,
	     const struct lr_net_vnet_hdr *vh)
{
	struct tpacket2_hdr *h = (struct tpacket2_hdr *)txq->frames[txq->head];
	uint8_t *dst = (uint8_t *)h + AFP_TX_DATA_OFF;

	memcpy(dst, vh, txq->vnet_len);
	lr_pktmbuf_copy_out(m, dst + txq->vnet_len);
	h->tp_len = m->pkt_len + txq->vnet_len;
	h->tp_snaplen = h->tp_len;
	__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST,
			 __ATOMIC_RELEASE);
	if (++txq->head == txq->nb_frames)
		txq->head = 0;
	lr_counter_add(&txq->c.packets, 1);
	lr_counter_add(&txq->c.bytes, m->pkt_len);
}

/* Cut super-frame m into frames here and queue them all, or none: 1 if
 * they went (or m was dropped as bad), 0 if the ring has no room yet. */
static int
tx_tso_sw(struct afp_txq *txq, struct lr_mbuf *m)
{
	struct lr_mbuf *segs[AFP_TSO_SEGS_MAX];
	struct lr_net_vnet_hdr vh;
	int n = lr_net_tso_segment(m, m->pool, segs, AFP_TSO_SEGS_MAX);

	if (n == -ENOBUFS)
		return 0; /* the pool is short now: again on the next burst */
	if (n < 0) {
		lr_counter_add(&txq->offload_errors, 1);
		lr_counter_add(&txq->c.errors, 1);
		return 1;
	}
	int room = tx_frames_free(txq, txq->head, (uint32_t)n);

	memset(&vh, 0, sizeof(vh));
	for (int k = 0; k < n; k++) {
		if (room)
			tx_frame_put(txq, segs[k], &vh);
		lr_pktmbuf_free(segs[k]);
	}
	if (room)
		lr_counter_add(&txq->tso_sw, 1);
	return room;
}

/* A frame with offload flags: checksums from the header lengths computed
 * here, a partial checksum and a super-frame that fits a ring frame handed
 * to the kernel in the header (vnet=1, lr_net_vnet_tx()) or done here. 1
 * if m was queued or dropped, 0 if the ring has no room yet. */
static __lr_cold int
tx_offload(struct afp_txq *txq, struct lr_mbuf *m)
{
	struct lr_net_vnet_hdr vh;
	int ret;

	memset(&vh, 0, sizeof(vh));
	if (!txq->vnet_len) {
		if (m->ol_flags & LR_MBUF_F_TCP_SEG_MASK)
			return tx_tso_sw(txq, m);
		ret = lr_net_cksum_offload(m);
	} else {
		ret = lr_net_vnet_tx(m, &vh);
		if (ret == LR_NET_VNET_TX_SEGMENT ||
		    (ret == 0 && vh.gso_type != LR_NET_VNET_GSO_NONE &&
		     m->pkt_len + txq->vnet_len > txq->room))
			return tx_tso_sw(txq, m);
	}
	if (ret != 0 || (vh.gso_type == LR_NET_VNET_GSO_NONE &&
			 m->pkt_len > txq->max_len)) {
		lr_counter_add(&txq->offload_errors, 1);
		lr_counter_add(&txq->c.errors, 1);
		return 1;
	}
	if (!tx_frames_free(txq, txq->head, 1)) {
		lr_counter_add(&txq->ring_full, 1);
		return 0;
	}
	tx_frame_put(txq, m, &vh);
	return 1;
}

/* Transmit burst (af_packet_private.h). */
uint16_t
lr_af_packet_tx_burst_(void *q, struct lr_mbuf **pkts, uint16_t nb_pkts)
{
	struct afp_txq *txq = q;
	uint32_t head = txq->head, vlen = txq->vnet_len;
	uint64_t bytes = 0;
	uint16_t i, sent = 0;

	for (i = 0; i < nb_pkts; i++) {
		struct lr_mbuf *m = pkts[i];
		struct tpacket2_hdr *h =
		    (struct tpacket2_hdr *)txq->frames[head];
		uint8_t *dst = (uint8_t *)h + AFP_TX_DATA_OFF;

		if (lr_unlikely(m->ol_flags & LR_MBUF_F_OFFLOAD_MASK)) {
			txq->head = head;
			if (!tx_offload(txq, m))
				break;
			head = txq->head;
			continue;
		}
		if (__atomic_load_n(&h->tp_status, __ATOMIC_ACQUIRE) !=
		    TP_STATUS_AVAILABLE) {
			lr_counter_add(&txq->ring_full, 1);
			break;
		}
		if (lr_unlikely(m->pkt_len > txq->max_len)) {
			lr_counter_add(&txq->c.errors, 1);
			continue;
		}
		/* A zero virtio_net_hdr (vnet=1): no offload. */
		memset(dst, 0, vlen);
		dst += vlen;
		if (lr_likely(m->nb_segs == 1))
			memcpy(dst, lr_pktmbuf_mtod(m, const uint8_t *),
			       m->data_len);
		else
			lr_pktmbuf_copy_out(m, dst);
		h->tp_len = m->pkt_len + vlen;
		h->tp_snaplen = h->tp_len;
		__atomic_store_n(&h->tp_status, TP_STATUS_SEND_REQUEST,
				 __ATOMIC_RELEASE);
		if (++head == txq->nb_frames)
			head = 0;
		bytes += m->pkt_len;
		sent++;
	}
	txq->head = head;
	lr_af_packet_tx_kick_(txq);
	lr_pktmbuf_free_bulk(pkts, i);
	lr_counter_add(&txq->c.packets, sent);
	lr_counter_add(&txq->c.bytes, bytes);
	return i;
}
