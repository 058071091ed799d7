/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_virtio_user: net_virtio_user's datapath as a hostile vhost-user
 * backend drives it. The backend maps the port's whole region read-write,
 * so it can write anything there, not only the used rings: the input is a
 * setting byte (bit 0 packed rings, 1 MRG_RXBUF, 2 IN_ORDER, 3 EVENT_IDX,
 * bits 4-6 log2 of the ring size - 1: 2..256 descriptors), then records:
 * an op byte, (op & 3) 0: write the next (op >> 3) + 1 bytes at a 16-bit
 * offset (two bytes) into ring (op >> 2) & 1 (0: rx queue's, 1: tx
 * queue's; descriptors, rings and buffers); 1: an rx burst; 2: a tx burst
 * of (op >> 2) + 1 frames, sizes from the next byte (x 40 bytes, 60 at
 * least; frames over one buffer go out as chains); 3: a write of a 16-bit
 * value (two bytes) at a 16-bit offset of the ring (indexes and flags).
 * Checked: nothing read or written outside the region (ASan), every
 * received packet a valid mbuf no longer than the ring could hold, every
 * mbuf back in the pool after the port is freed, a queue down only after
 * a fault, and a queue down receives nothing and drops all it is given.
 */
#include <string.h>

#include "fuzz_common.h"
#include "lr_mbuf.h"
#include "virtio_user_fuzz.h"

#define FZ_BURST 32

static struct lr_mempool *mp;

/* A tx burst of k frames, sizes from s. */
static void
fz_tx(struct vu_port *p, unsigned k, uint8_t s)
{
	static uint8_t zero[10240];
	struct lr_mbuf *m[FZ_BURST];
	uint32_t len = LR_MAX(60u, 40u * s);
	unsigned n = 0;
	uint16_t sent;
	int down = !lr_vu_fuzz_up_(p, 1);

	for (; n < k; n++) {
		m[n] = lr_pktmbuf_alloc(mp);
		if (m[n] == NULL)
			break;
		if (lr_pktmbuf_append_copy(m[n], mp, zero, len) != 0) {
			lr_pktmbuf_free(m[n]);
			break;
		}
		len = LR_MAX(60u, (len * 7) % 10000);
	}
	sent = lr_vu_fuzz_tx_(p, m, (uint16_t)n);
	FUZZ_CHECK(sent <= n);
	if (down) /* everything dropped and freed */
		FUZZ_CHECK(sent == n);
	if (!lr_vu_fuzz_up_(p, 1))
		FUZZ_CHECK(lr_vu_fuzz_bad_(p));
	lr_pktmbuf_free_bulk(m + sent, n - sent);
}

/* An rx burst; every packet checked and freed. */
static void
fz_rx(struct vu_port *p, uint32_t qsize)
{
	struct lr_mbuf *m[FZ_BURST];
	int down = !lr_vu_fuzz_up_(p, 0);
	uint16_t r = lr_vu_fuzz_rx_(p, m, FZ_BURST);

	FUZZ_CHECK(r <= FZ_BURST);
	if (down)
		FUZZ_CHECK(r == 0);
	if (!lr_vu_fuzz_up_(p, 0))
		FUZZ_CHECK(lr_vu_fuzz_bad_(p));
	for (uint16_t i = 0; i < r; i++) {
		FUZZ_CHECK(lr_mbuf_validate(m[i]) == 0);
		FUZZ_CHECK(m[i]->pkt_len <= (uint64_t)qsize * 2048);
	}
	lr_pktmbuf_free_bulk(m, r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vu_port *p;
	size_t i = 1, rlen[2], roff[2], len;
	uint8_t *reg;
	uint32_t qsize;

	if (mp == NULL)
		mp = fuzz_eal_up("fuzz_virtio_user");
	if (size < 1)
		return 0;
	qsize = 1u << (1 + ((data[0] >> 4) & 7));
	p = lr_vu_fuzz_port_new_(mp, qsize, data[0] & 1, (data[0] >> 1) & 1,
				 (data[0] >> 2) & 1, (data[0] >> 3) & 1);
	FUZZ_CHECK(p != NULL);
	reg = lr_vu_fuzz_region_(p, &len);
	roff[0] = lr_vu_fuzz_ring_(p, 0, &rlen[0]);
	roff[1] = lr_vu_fuzz_ring_(p, 1, &rlen[1]);
	FUZZ_CHECK(roff[0] + rlen[0] <= len && roff[1] + rlen[1] <= len);
	while (i < size) {
		uint8_t op = data[i++];
		int t = (op >> 2) & 1;

		if ((op & 3) == 1) {
			fz_rx(p, qsize);
		} else if ((op & 3) == 2) {
			fz_tx(p, (op >> 2) % FZ_BURST + 1,
			      i < size ? data[i++] : 0);
		} else if (i + 2 <= size) {
			size_t off =
			    (data[i] | (size_t)data[i + 1] << 8) % rlen[t];
			size_t n = (op & 3) == 0 ? (size_t)(op >> 3) + 1 : 2;

			i += 2;
			n = LR_MIN(n, LR_MIN(size - i, rlen[t] - off));
			memcpy(reg + roff[t] + off, data + i, n);
			i += (op & 3) == 0 ? n : LR_MIN((size_t)2, size - i);
		} else {
			break;
		}
	}
	lr_vu_fuzz_port_free_(p);
	fuzz_check_pool(mp);
	return 0;
}
