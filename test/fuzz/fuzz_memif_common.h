/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_memif_common.h - what the two net_memif targets share
 * (fuzz_memif.c drives the driver's server, fuzz_memif_client.c its
 * client): the EAL and pool started once with the log silenced, the
 * records an input is made of, and the checks at each input's end.
 *
 * An input is a setting byte, then records of 1 + MIF_MSG_SZ bytes: a
 * control byte and a body. A control byte with bit 7 clear makes the body
 * a message of the peer; with bit 7 set, (ctl & 3) is an action: 0 the peer
 * goes away (and a new connection is made), 1 a receive burst, 2 a
 * transmit burst, 3 the control thread's round, after which the port's
 * link is up exactly when the target's model says. Header-only, for the
 * two targets.
 */
#ifndef FUZZ_MEMIF_COMMON_H
#define FUZZ_MEMIF_COMMON_H

#include "fuzz_common.h"
#include "lr_log.h"
#include "memif_fuzz.h"
#include "memif_proto.h"

/** Bytes of a record: its control byte and a message's worth. */
#define FUZZ_MEMIF_REC (1 + MIF_MSG_SZ)

/** A target's side of the records: z its state (given back to each). */
struct fuzz_memif_acts {
	void (*msg)(void *z, uint8_t ctl, const uint8_t *rec);
	void (*peer_gone)(void *z);
	void (*rx)(void *z, const uint8_t *rec);
	void (*tx)(void *z, const uint8_t *rec);
};

/** The EAL and the target's mbuf pool, started once; the driver's
 *  refusals, the expected outcome, logged to nowhere. */
static inline struct lr_mempool *
fuzz_memif_up(const char *name)
{
	struct lr_mempool *mp = fuzz_eal_up(name);

	lr_log_set_stream(fopen("/dev/null", "w"));
	return mp;
}

/** Play the records of an input (data, size bytes; data[0] the setting
 *  byte) through a, on port p whose link the model says is up when *up. */
static inline void
fuzz_memif_records(const struct fuzz_memif_acts *a, void *z, struct mif_port *p,
		   const int *up, const uint8_t *data, size_t size)
{
	for (size_t off = 1; off + FUZZ_MEMIF_REC <= size;
	     off += FUZZ_MEMIF_REC) {
		uint8_t ctl = data[off];
		const uint8_t *rec = data + off + 1;

		if (!(ctl & 0x80)) {
			a->msg(z, ctl, rec);
			continue;
		}
		switch (ctl & 3) {
		case 0:
			a->peer_gone(z);
			break;
		case 1:
			a->rx(z, rec);
			break;
		case 2:
			a->tx(z, rec);
			break;
		default:
			lr_memif_fuzz_poll_(p);
			FUZZ_CHECK(lr_memif_fuzz_up_(p) == *up);
			break;
		}
	}
}

/** The end of an input: every mbuf of mp back, and as many fds open as
 *  at its start (nfd). */
static inline void
fuzz_memif_end(const struct lr_mempool *mp, int nfd)
{
	fuzz_check_pool(mp);
	FUZZ_CHECK(fuzz_count_fds() == nfd);
}

#endif /* FUZZ_MEMIF_COMMON_H */
