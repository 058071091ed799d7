/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr-test-fault-fwd [EAL options] -- [--dup N] [--swap N]: a forwarder with
 * faults, for the tests of a traffic generator's counting (test/
 * test_pktgen_faults.sh). It takes the frames of port 0 to port 1 (one
 * way), and among the IPv4 UDP frames (a generator's; the kernel's own
 * frames pass untouched):
 *   --dup N   every Nth is sent twice (the copy right after it);
 *   --swap N  every Nth is held and sent after the one that follows it
 *             (two frames swapped: one frame out of order).
 * It prints "fault_fwd: forwarding" once its ports are started, and on
 * SIGTERM, SIGINT or SIGHUP stops and prints one line
 *   fault_fwd: rx=N tx=N dup=N swapped=N dropped=N
 * (dropped: frames a port refused, or no mbuf for a copy), exit 0; 1 after
 * an error, 2 for a usage error.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_mbuf.h"
#include "lr_net.h"

#define BURST	32
#define NB_DESC 1024

/* What it did. */
static struct {
	uint64_t rx, tx, dup, swapped, dropped;
} st;

static unsigned dup_every, swap_every;

/* Parse "--dup N --swap N" (argv[0]: the program's name); 0 or -1 after
 * a message. */
static int
parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		unsigned *dst = strcmp(argv[i], "--dup") == 0	 ? &dup_every
				: strcmp(argv[i], "--swap") == 0 ? &swap_every
								 : NULL;
		char *end;
		unsigned long v;

		if (dst == NULL || i + 1 == argc) {
			fprintf(stderr,
				"lr-test-fault-fwd: '%s': expected --dup N "
				"or --swap N\n",
				argv[i]);
			return -1;
		}
		errno = 0;
		v = strtoul(argv[++i], &end, 10);
		if (errno || *end || v < 2 || v > 1000000) {
			fprintf(stderr,
				"lr-test-fault-fwd: %s '%s': expected 2 to "
				"1000000\n",
				argv[i - 1], argv[i]);
			return -1;
		}
		*dst = (unsigned)v;
	}
	return 0;
}

/* Whether m is an IPv4 UDP frame (no VLAN tag). */
static bool
is_udp4(const struct lr_mbuf *m)
{
	const uint8_t *p = lr_pktmbuf_mtod(m, const uint8_t *);

	return m->data_len >= 34 && p[12] == 0x08 && p[13] == 0x00 &&
	       p[23] == 17;
}

/* A copy of m from mp; NULL when the pool is empty. */
static struct lr_mbuf *
copy(const struct lr_mbuf *m, struct lr_mempool *mp)
{
	struct lr_mbuf *c = lr_pktmbuf_alloc(mp);
	char *d;

	if (c == NULL)
		return NULL;
	d = lr_pktmbuf_append(c, m->data_len);
	if (d == NULL) {
		lr_pktmbuf_free(c);
		return NULL;
	}
	memcpy(d, lr_pktmbuf_mtod(m, const void *), m->data_len);
	return c;
}

/* The frames of one received burst, faults applied, into out (room for
 * 2 * BURST + 1); *held the frame held back for a swap (or NULL). How
 * many to send. */
static unsigned
apply(struct lr_mbuf **in, unsigned n, struct lr_mbuf **out,
      struct lr_mbuf **held, struct lr_mempool *mp)
{
	static uint64_t udp;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		struct lr_mbuf *m = in[i], *c;

		if (!is_udp4(m)) {
			out[k++] = m;
			continue;
		}
		udp++;
		if (*held == NULL && swap_every && udp % swap_every == 0) {
			*held = m;
			continue;
		}
		out[k++] = m;
		if (*held != NULL) {
			out[k++] = *held;
			*held = NULL;
			st.swapped++;
		}
		if (dup_every && udp % dup_every == 0) {
			c = copy(m, mp);
			if (c == NULL) {
				st.dropped++;
				continue;
			}
			out[k++] = c;
			st.dup++;
		}
	}
	return k;
}

/* Send out[0..n) on port 1, freeing what it refuses. */
static void
send_all(struct lr_mbuf **out, unsigned n)
{
	unsigned sent = 0;

	for (int tries = 0; sent < n && tries < 100; tries++)
		sent += lr_eth_tx_burst(1, 0, out + sent, (uint16_t)(n - sent));
	st.tx += sent;
	for (unsigned i = sent; i < n; i++) {
		lr_pktmbuf_free(out[i]);
		st.dropped++;
	}
}

/* Forward until a stop signal. */
static void
loop(struct lr_mempool *mp)
{
	struct lr_mbuf *in[BURST], *out[2 * BURST + 1], *held = NULL;

	while (!lr_eal_stop_requested()) {
		uint16_t n = lr_eth_rx_burst(0, 0, in, BURST);

		if (n == 0)
			continue;
		st.rx += n;
		send_all(out, apply(in, n, out, &held, mp));
	}
	if (held != NULL)
		send_all(&held, 1);
}

/* Port p with one queue each way, receiving from mp; 0 or -1. */
static int
setup_port(uint16_t p, struct lr_mempool *mp)
{
	int ret = lr_eth_dev_configure(p, 1, 1, NULL);

	if (ret == 0)
		ret = lr_eth_rx_queue_setup(p, 0, NB_DESC, lr_socket_id(), NULL,
					    mp);
	if (ret == 0)
		ret =
		    lr_eth_tx_queue_setup(p, 0, NB_DESC, lr_socket_id(), NULL);
	if (ret == 0)
		ret = lr_eth_dev_start(p);
	if (ret == 0)
		ret = lr_eth_promiscuous_enable(p);
	if (ret < 0) {
		fprintf(stderr, "lr-test-fault-fwd: port %u: %s\n", p,
			lr_strerror(-ret));
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct lr_mempool *mp = NULL;
	int ret, status = 1;

	if (lr_eal_stop_handler_install(NULL) < 0)
		return 1;
	ret = lr_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "lr-test-fault-fwd: EAL init failed: %s\n",
			lr_strerror(-ret));
		return 2;
	}
	if (parse(argc - ret, argv + ret) != 0) {
		lr_eal_cleanup();
		return 2;
	}
	if (lr_eth_dev_probe_eal_vdevs() < 0 || lr_eth_dev_count_avail() < 2) {
		fprintf(stderr,
			"lr-test-fault-fwd: needs two ports (--vdev)\n");
		goto out;
	}
	mp = lr_pktmbuf_pool_create("fault_pool", 8192, 256, 0,
				    LR_MBUF_DEFAULT_BUF_SIZE, lr_socket_id());
	if (mp == NULL) {
		fprintf(stderr, "lr-test-fault-fwd: no mbuf pool: %s\n",
			lr_strerror(lr_errno));
		goto out;
	}
	if (setup_port(0, mp) != 0 || setup_port(1, mp) != 0)
		goto out;
	printf("fault_fwd: forwarding\n");
	fflush(stdout);
	loop(mp);
	printf("fault_fwd: rx=%llu tx=%llu dup=%llu swapped=%llu "
	       "dropped=%llu\n",
	       (unsigned long long)st.rx, (unsigned long long)st.tx,
	       (unsigned long long)st.dup, (unsigned long long)st.swapped,
	       (unsigned long long)st.dropped);
	fflush(stdout);
	status = 0;
out:
	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++)
		if (lr_eth_dev_is_valid_port(p))
			lr_eth_dev_close(p);
	if (mp != NULL)
		lr_mempool_free(mp);
	lr_eal_cleanup();
	return status;
}
