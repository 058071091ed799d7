/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_vhost_user: lr_vhost_user_msg_check() on any message, and the
 * address translation of lr_vhost_mem_gpa()/_uva() over any memory table
 * the checker lets through. The input is a 17-byte control block, then
 * the message as it came on the wire (12-byte header, payload): byte 0
 * bits 0-3 the descriptor count, bit 4 a packed ring, bit 5 the message is
 * a reply, bits 6-7 the queue pairs less one; bytes 1-8 an offset and
 * bytes 9-16 a length (little-endian) to translate at, from the start of
 * region (offset % regions).
 * Checked: a refusal is a known errno with a reason written; an accepted
 * message is a request we know with the size it came with and, for a
 * memory table, 1..8 regions, one descriptor each, none of size 0, none
 * wrapping past 2^64, no two overlapping in either address space; a
 * translation returns an address inside exactly the region a plain
 * search finds (or NULL when none holds the whole range), never outside
 * the memory standing for the regions.
 */
#include <errno.h>
#include <string.h>

#include "lr_vhost_user.h"

#include "fuzz_common.h"

#define CTL  17
#define SLOT 4096

static uint8_t mem[LR_VHOST_USER_MAX_REGIONS * SLOT];

static uint64_t
le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The region of m holding [a, a + len) whole, by plain search, or -1. */
static int
find(const struct lr_vhost_mem *m, uint64_t a, uint64_t len, bool gpa)
{
	for (uint32_t i = 0; i < m->nregions; i++) {
		uint64_t start = gpa ? m->r[i].guest_addr : m->r[i].user_addr;

		if (a >= start && a - start < m->r[i].size &&
		    len <= m->r[i].size - (a - start))
			return (int)i;
	}
	return -1;
}

/* Translate at off/len from region k's start, both ways, and compare. */
static void
translate(const struct lr_vhost_mem *m, uint32_t k, uint64_t off, uint64_t len)
{
	for (int gpa = 0; gpa < 2; gpa++) {
		uint64_t a =
		    (gpa ? m->r[k].guest_addr : m->r[k].user_addr) + off;
		uint8_t *p = gpa ? lr_vhost_mem_gpa(m, a, len)
				 : lr_vhost_mem_uva(m, a, len);
		int i = find(m, a, len, gpa);

		if (i < 0) {
			FUZZ_CHECK(p == NULL);
			continue;
		}
		FUZZ_CHECK(p != NULL);
		FUZZ_CHECK(p >= m->r[i].host &&
			   (uint64_t)(p - m->r[i].host) < m->r[i].size);
		FUZZ_CHECK(p + (len ? len : 1) <= mem + sizeof(mem));
	}
}

/* An accepted memory table: its invariants, then translation through it
 * (each region standing in a 4 KiB slot, its size clipped to that). */
static void
accepted_memory(const struct lr_vhost_user_memory *t, unsigned nfds,
		const uint8_t *ctl)
{
	struct lr_vhost_mem m = {0};

	FUZZ_CHECK(t->nregions >= 1 &&
		   t->nregions <= LR_VHOST_USER_MAX_REGIONS);
	FUZZ_CHECK(nfds == t->nregions);
	for (uint32_t i = 0; i < t->nregions; i++) {
		const struct lr_vhost_user_region *a = &t->regions[i];

		FUZZ_CHECK(a->size != 0);
		FUZZ_CHECK(a->guest_addr + a->size > a->guest_addr);
		FUZZ_CHECK(a->user_addr + a->size > a->user_addr);
		for (uint32_t j = 0; j < i; j++) {
			const struct lr_vhost_user_region *b = &t->regions[j];

			FUZZ_CHECK(a->guest_addr >= b->guest_addr + b->size ||
				   b->guest_addr >= a->guest_addr + a->size);
			FUZZ_CHECK(a->user_addr >= b->user_addr + b->size ||
				   b->user_addr >= a->user_addr + a->size);
		}
		m.r[i].guest_addr = a->guest_addr;
		m.r[i].user_addr = a->user_addr;
		m.r[i].size = a->size < SLOT ? a->size : SLOT;
		m.r[i].host = mem + i * SLOT;
	}
	m.nregions = t->nregions;
	translate(&m, (uint32_t)(le64(ctl + 1) % m.nregions),
		  le64(ctl + 1) >> 3, le64(ctl + 9));
	translate(&m, 0, le64(ctl + 1) & (SLOT - 1), le64(ctl + 9) & 0x1fff);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lr_vhost_user_check_ctx ctx;
	struct lr_vhost_user_msg msg;
	char why[256] = "";
	size_t len, pl;
	unsigned nfds;
	int rc;

	if (size < CTL)
		return 0;
	nfds = data[0] & 0xf;
	ctx.packed = (data[0] >> 4) & 1;
	ctx.reply = (data[0] >> 5) & 1;
	ctx.queue_pairs = (uint32_t)(data[0] >> 6) + 1;
	len = size - CTL;
	memset(&msg, 0, sizeof(msg));
	memcpy(&msg.hdr, data + CTL,
	       len < LR_VHOST_USER_HDR_SIZE ? len : LR_VHOST_USER_HDR_SIZE);
	pl = len > LR_VHOST_USER_HDR_SIZE ? len - LR_VHOST_USER_HDR_SIZE : 0;
	if (pl > LR_VHOST_USER_PAYLOAD_MAX)
		pl = LR_VHOST_USER_PAYLOAD_MAX;
	memcpy(&msg.payload, data + CTL + LR_VHOST_USER_HDR_SIZE, pl);

	rc = lr_vhost_user_msg_check(&msg, len, nfds, &ctx, why, sizeof(why));
	if (rc < 0) {
		FUZZ_CHECK(rc == -ENOSYS || rc == -EPROTO || rc == -EMSGSIZE ||
			   rc == -EBADF || rc == -ERANGE || rc == -EINVAL ||
			   rc == -EBADMSG);
		FUZZ_CHECK(why[0] != '\0' && memchr(why, 0, sizeof(why)));
		return 0;
	}
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(len == LR_VHOST_USER_HDR_SIZE + (size_t)msg.hdr.size);
	FUZZ_CHECK(strcmp(lr_vhost_user_request_name(msg.hdr.request),
			  "UNKNOWN") != 0);
	if (!ctx.reply && msg.hdr.request == LR_VHOST_USER_SET_MEM_TABLE)
		accepted_memory(&msg.payload.memory, nfds, data);
	return 0;
}
