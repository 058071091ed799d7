/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_stream.h - numbered frames for the driver tests of net_memif,
 * net_vhost and net_virtio_user (in lr_test_stream.c): frame i of stream
 * tag is an Ethernet header (broadcast, from 02:00:00:00:00:01, type
 * 0x0800) and bytes that follow from tag and i, bytes 14..21 holding tag
 * and i; made in an mbuf, checked byte for byte, and sent through ports
 * and received back in order with a bound on the frames in flight; and a
 * TCP super-frame with TSO asked.
 *
 * Errors: 0, or -1 after a message on stderr naming the stream and the
 * frame. One case at a time, on the main thread.
 */
#ifndef LR_TEST_STREAM_H
#define LR_TEST_STREAM_H

#include <stdint.h>

#include "lr_mbuf.h"

/** What a test's streams are made of. */
struct lr_test_stream {
	struct lr_mempool *pool;	 /* frames are made in */
	uint32_t (*size_of)(unsigned i); /* frame i's length */
	/* a received packet's checks before its bytes (NULL: none); 0 or
	 * -1 after a message */
	int (*check)(const struct lr_mbuf *m, unsigned tag, unsigned i);
	unsigned window; /* lr_test_stream_xfer(): frames in flight, at most */
	unsigned secs;	 /* lr_test_stream_xfer(): its deadline */
};

/** Frame i of stream tag into d (len bytes, at least 22). */
void lr_test_frame_make(uint8_t *d, unsigned tag, unsigned i, uint32_t len);

/** An mbuf of s->pool holding frame i of tag (chained above one segment's
 *  room), or NULL. */
struct lr_mbuf *lr_test_stream_mbuf(const struct lr_test_stream *s,
				    unsigned tag, unsigned i);

/** Packet m is frame i of tag (s->check() first): 0 or -1. */
int lr_test_stream_check(const struct lr_test_stream *s,
			 const struct lr_mbuf *m, unsigned tag, unsigned i);

/** An mbuf of mp holding the TCP/IPv4 frame f (len bytes: Ethernet, a
 *  20-byte IP and a 20-byte TCP header, then the payload; chained above
 *  one segment's room) with TSO asked into segments of mss bytes of
 *  payload and both checksums; NULL when the pool ran dry. */
struct lr_mbuf *lr_test_tso_mbuf(struct lr_mempool *mp, const uint8_t *f,
				 uint32_t len, uint16_t mss);

/** Send n frames of tag from (tx, txq) and receive each once on (rx,
 *  rxq), in order, byte for byte, up to s->window in flight, within
 *  s->secs: 0 or -1. */
int lr_test_stream_xfer(const struct lr_test_stream *s, int tx, uint16_t txq,
			int rx, uint16_t rxq, unsigned tag, unsigned n);

#endif /* LR_TEST_STREAM_H */
