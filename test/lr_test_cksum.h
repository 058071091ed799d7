/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_cksum.h - the tests' reference for the Internet checksum
 * (RFC 1071), written the plain way so that lib/net's fast sums and the
 * drivers' checksum offloads are checked against something independent
 * of them. Header only, no state.
 */
#ifndef LR_TEST_CKSUM_H
#define LR_TEST_CKSUM_H

#include <stdint.h>

/** The big-endian ones'-complement sum of the n bytes at p (an odd last
 *  byte padded with zero) added to acc, folded to 16 bits; one byte at a
 *  time. */
static inline uint32_t
lr_test_cksum_ref(const uint8_t *p, uint32_t n, uint32_t acc)
{
	for (uint32_t i = 0; i < n; i += 2)
		acc += (uint32_t)p[i] << 8 | (i + 1 < n ? p[i + 1] : 0);
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return acc;
}

#endif /* LR_TEST_CKSUM_H */
