/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_pcap: the input as a pcap file (in a memfd, read back through
 * /proc/self/fd/N) read by everything that reads pcap files:
 *   - a net_pcap port with rx_pcap=<file>, made with lr_eth_dev_create()
 *     and driven through the ethdev API: configure, start, receive until
 *     the queue reports the end, stop, close;
 *   - the same with infinite_rx=1 (the file loaded at probe, replayed);
 *   - lr-pktgen's --pcap loader, pg_pcap_load().
 * Every mbuf received is checked (lr_mbuf_validate(), pkt_len the sum of
 * its segments) and freed; after each input every mbuf must be back in the
 * pool and the pool's invariants must hold, so a leak or a double free is
 * a crash.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "lr_ethdev.h"
#include "lr_log.h"
#include "pktgen.h"

#define BURST 32
/* Bursts taken from an infinite replay (it never ends by itself). */
#define REPLAY_BURSTS 3

static struct lr_mempool *pool;
static int fd = -1;
static char path[64];

static void
setup(void)
{
	pool = fuzz_eal_up("fuzz_pcap");
	fd = memfd_create("fuzz_pcap", 0);
	if (fd < 0) {
		perror("fuzz_pcap: memfd_create");
		abort();
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	/* Bad files are the expected outcome: keep their messages
	 * unprinted but formatted, so a bad format argument still shows. */
	lr_log_set_stream(fopen("/dev/null", "w"));
}

/* Check and free n received mbufs; their total bytes. */
static uint64_t
consume(struct lr_mbuf **pkts, uint16_t n)
{
	uint64_t bytes = 0;

	for (uint16_t i = 0; i < n; i++) {
		const struct lr_mbuf *s;
		uint32_t sum = 0;

		FUZZ_CHECK(lr_mbuf_validate(pkts[i]) == 0);
		for (s = pkts[i]; s != NULL; s = s->next)
			sum += s->data_len;
		FUZZ_CHECK(sum == pkts[i]->pkt_len);
		bytes += pkts[i]->pkt_len;
	}
	lr_pktmbuf_free_bulk(pkts, n);
	return bytes;
}

/* A net_pcap port reading the file: all of it, or max_bursts bursts. */
static void
read_port(const char *extra, unsigned max_bursts)
{
	struct lr_mbuf *pkts[BURST];
	struct lr_eth_stats st;
	char args[128];
	uint64_t got = 0, bytes = 0;
	int port;

	snprintf(args, sizeof(args), "net_pcap0,rx_pcap=%s%s", path, extra);
	port = lr_eth_dev_create(args);
	if (port < 0) /* not a pcap file this driver takes: refused */
		return;
	FUZZ_CHECK(lr_eth_dev_configure((uint16_t)port, 1, 0, NULL) == 0);
	FUZZ_CHECK(lr_eth_rx_queue_setup((uint16_t)port, 0, 64,
					 LR_SOCKET_ID_ANY, NULL, pool) == 0);
	if (lr_eth_dev_start((uint16_t)port) == 0) {
		for (unsigned b = 0; b < max_bursts; b++) {
			uint16_t n =
			    lr_eth_rx_burst((uint16_t)port, 0, pkts, BURST);

			if (n == 0 && max_bursts == UINT32_MAX)
				break;
			FUZZ_CHECK(n <= BURST);
			got += n;
			bytes += consume(pkts, n);
		}
		FUZZ_CHECK(lr_eth_stats_get((uint16_t)port, &st) == 0);
		FUZZ_CHECK(st.ipackets == got && st.ibytes == bytes);
		FUZZ_CHECK(lr_eth_dev_stop((uint16_t)port) == 0);
	}
	FUZZ_CHECK(lr_eth_dev_close((uint16_t)port) == 0);
}

static void
load_pktgen(void)
{
	const unsigned max_len = PG_MAX_SIZE - PG_FCS;
	struct pg_tmpl *t = NULL;
	int n = pg_pcap_load(path, &t, max_len);

	if (n < 0)
		return;
	for (int i = 0; i < n; i++)
		FUZZ_CHECK(t[i].len >= LR_ETHER_MIN_LEN && t[i].len <= max_len);
	pg_pcap_free(t, (unsigned)n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (pool == NULL)
		setup();
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();

	read_port("", UINT32_MAX);
	fuzz_check_pool(pool);
	read_port(",infinite_rx=1", REPLAY_BURSTS);
	fuzz_check_pool(pool);
	if (pg_have_pcap())
		load_pktgen();
	return 0;
}
