/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_tap against the kernel's own stack. The port lives in ${P}fwd; its
 * interface is moved into ${P}gen (so the port's control path has to find
 * it there) and given 10.78.0.1/24, with 10.78.0.2 a static neighbour
 * behind the port:
 *  - UDP datagrams a kernel socket sends to 10.78.0.2 arrive at the port
 *    byte for byte, with the partial checksum the stack left to offload
 *    (LR_MBUF_F_RX_L4_CKSUM_PARTIAL), which completes to a correct one;
 *  - frames the port sends reach a kernel socket: checksums complete, or
 *    asked from the header lengths, or partial (the kernel completes it),
 *    chained mbufs; a frame with a wrong checksum is dropped by the stack
 *    and counted in its Udp InCsumErrors (so the check can fail);
 *  - a queue not drained: the kernel's drops counted in imissed, every
 *    datagram received or missed;
 *  - qpairs=4: flows spread over the queues, a flow on one queue; with
 *    two of four queues configured nothing lands on the others;
 *  - link follows the port's state and the interface's up flag; mac=;
 *    the default name lrtap%d; persist keeps the interface, else it goes
 *    with the port; bad devargs give clear errors and leave nothing.
 * Needs root; skips without /dev/net/tun.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_arp.h>

#include "lr_cycles.h"
#include "lr_eal.h"
#include "lr_eth_tap.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_net.h"
#include "lr_test.h"
#include "lr_test_netns.h"
#include "lr_test_port.h"

#define BURST	 32
#define UDP_RX	 7777 /* kernel -> port */
#define UDP_TX	 7778 /* port -> kernel */
#define WAIT_S	 10
#define KERN_IP	 "10.78.0.1"
#define PEER_MAC "02:00:00:00:00:02"
#define NFLOWS	 32
#define PER_FLOW 4

static struct lr_test_netns net;
static struct lr_mempool *pool;
static char ifname[IFNAMSIZ]; /* the tap of the current case */

static int
eal_up(void)
{
	pool = lr_test_eal_pool("test_pmd_tap", 256, 4096, 64);
	return pool != NULL ? 0 : -1;
}

/* Set up the EAL once; close ports a failed case left behind. */
#define EAL_UP() LR_TEST_PORT_UP(eal_up)

static double
now_s(void)
{
	return (double)lr_get_tsc_cycles() / (double)lr_get_tsc_hz();
}

static int
port_start(int port, uint16_t nq)
{
	int ret;

	if (port < 0)
		return port;
	ret = lr_eth_dev_configure((uint16_t)port, nq, nq, NULL);
	for (uint16_t q = 0; ret == 0 && q < nq; q++) {
		ret = lr_eth_rx_queue_setup((uint16_t)port, q, 512,
					    LR_SOCKET_ID_ANY, NULL, pool);
		if (ret == 0)
			ret = lr_eth_tx_queue_setup((uint16_t)port, q, 512,
						    LR_SOCKET_ID_ANY, NULL);
	}
	return ret ? ret : lr_eth_dev_start((uint16_t)port);
}

/* Wait up to WAIT_S for the port's link to be `up`; 0 or -1. */
static int
link_wait(uint16_t port, int up)
{
	struct lr_eth_link l;
	double end = now_s() + WAIT_S;

	do {
		if (lr_eth_link_get_nowait(port, &l) == 0 &&
		    l.link_status == up)
			return 0;
		usleep(10000);
	} while (now_s() < end);
	return -1;
}

/* Port on a new tap named ${P}<sfx> with extra devargs and nq queues,
 * its interface moved to ${P}gen with an address and a static neighbour;
 * the port id, or -1. */
static int
tap_in_gen(const char *sfx, const char *extra, uint16_t nq)
{
	char args[256];
	int port;

	lr_test_netns_ifname(&net, sfx, ifname);
	snprintf(args, sizeof(args), "net_tap0,iface=%s%s", ifname, extra);
	port = lr_eth_dev_create(args);
	if (port < 0 || port_start(port, nq) != 0)
		return -1;
	if (lr_test_netns_sh("ip link set %s netns %s", ifname, net.ns_gen) ||
	    lr_test_netns_sh("ip -n %s addr add " KERN_IP "/24 dev %s",
			     net.ns_gen, ifname) ||
	    lr_test_netns_sh("ip -n %s link set %s up", net.ns_gen, ifname) ||
	    lr_test_netns_sh("ip -n %s neigh replace 10.78.0.2 lladdr " PEER_MAC
			     " dev %s nud permanent",
			     net.ns_gen, ifname) ||
	    link_wait((uint16_t)port, 1) != 0) {
		fprintf(stderr, "tap %s not up in %s\n", ifname, net.ns_gen);
		return -1;
	}
	return port;
}

/* A UDP socket in ${P}gen bound to KERN_IP:port (0: any port). */
static int
gen_udp(uint16_t port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
	int fd;

	inet_pton(AF_INET, KERN_IP, &a.sin_addr);
	if (lr_test_netns_enter(&net, 1) != 0)
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
		close(fd);
		fd = -1;
	}
	lr_test_netns_enter(&net, 0);
	return fd;
}

/* A one-queue tap port in ${P}gen (tap_in_gen(sfx)) and a UDP socket
 * there to send to it from: 0 with *port and *fd, or -1 after a message. */
static int
tap_and_sender(const char *sfx, int *port, int *fd)
{
	*port = tap_in_gen(sfx, "", 1);
	LR_TEST_ASSERT(*port >= 0, "tap port");
	*fd = gen_udp(0);
	LR_TEST_ASSERT(*fd >= 0, "UDP socket in %s", net.ns_gen);
	return 0;
}

/* Send one datagram of len bytes from fd to 10.78.0.2:UDP_RX. */
static int
gen_send(int fd, const uint8_t *p, uint32_t len)
{
	struct sockaddr_in d = {.sin_family = AF_INET,
				.sin_port = htons(UDP_RX)};

	inet_pton(AF_INET, "10.78.0.2", &d.sin_addr);
	return sendto(fd, p, len, 0, (struct sockaddr *)&d, sizeof(d)) ==
		       (ssize_t)len
		   ? 0
		   : -1;
}

static uint8_t
pat(uint32_t i, uint32_t seed)
{
	return (uint8_t)(i * 11 + seed * 7 + (i >> 8));
}

/* The Udp InCsumErrors counter of ${P}gen; -1 if unreadable. */
static long long
gen_udp_csum_errors(void)
{
	char line[1024], head[1024] = "", cmd[128];
	long long v = -1;
	FILE *f;

	/* Through a process of that namespace: this process's view of
	 * /proc/.../net may stay the namespace it first looked from. */
	snprintf(cmd, sizeof(cmd), "ip netns exec %s cat /proc/net/snmp",
		 net.ns_gen);
	f = popen(cmd, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "Udp:", 4) != 0)
			continue;
		if (head[0] == '\0') {
			memcpy(head, line, sizeof(line));
			continue;
		}
		/* The value under the InCsumErrors heading. */
		char *hs, *vs, *h = strtok_r(head, " \n", &hs);
		char *x = strtok_r(line, " \n", &vs);

		for (; h && x; h = strtok_r(NULL, " \n", &hs),
			       x = strtok_r(NULL, " \n", &vs))
			if (strcmp(h, "InCsumErrors") == 0)
				v = atoll(x);
	}
	pclose(f);
	return v;
}

/* Whether m (a flat copy in f, len bytes) is an IPv4 UDP datagram to
 * port dport; its payload offset in *pl. */
static int
is_udp_to(const uint8_t *f, uint32_t len, uint16_t dport, uint32_t *pl)
{
	uint32_t ihl;

	if (len < 42 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17)
		return 0;
	ihl = (uint32_t)(f[14] & 0xf) * 4;
	if (len < 14 + ihl + 8 ||
	    (uint32_t)(f[14 + ihl + 2] << 8 | f[14 + ihl + 3]) != dport)
		return 0;
	*pl = 14 + ihl + 8;
	return 1;
}

/* Reference ones'-complement check of the UDP checksum of flat frame f:
 * 1 if it is right (or absent), else 0. */
static int
udp_sum_ok(const uint8_t *f, uint32_t len)
{
	uint32_t ihl = (uint32_t)(f[14] & 0xf) * 4, l4 = 14 + ihl;
	uint32_t ulen = (uint32_t)(f[l4 + 4] << 8 | f[l4 + 5]), s;

	if (f[l4 + 6] == 0 && f[l4 + 7] == 0)
		return 1;
	s = 17 + ulen;
	for (uint32_t i = 0; i < 8; i += 2)
		s += (uint32_t)(f[26 + i] << 8 | f[27 + i]);
	for (uint32_t i = 0; i < ulen && l4 + i < len; i += 2)
		s += (uint32_t)(f[l4 + i] << 8) |
		     (i + 1 < ulen ? f[l4 + i + 1] : 0);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

/* ------------------------------------------------------------------ */
/* Cases. */

/* Kernel -> port: 40 datagrams of 1..1400 bytes, every byte checked, the
 * partial checksums completed and checked. */
static int
test_kernel_to_port(void)
{
	static uint8_t exp[2048], f[2048];
	struct lr_mbuf *m[BURST];
	unsigned got = 0, partial = 0;
	const unsigned n = 40;
	int port, fd;

	EAL_UP();
	if (tap_and_sender("k", &port, &fd) != 0)
		return -1;
	for (unsigned i = 0; i < n; i++) {
		uint32_t len = 1 + (i * 137) % 1400;

		for (uint32_t k = 0; k < len; k++)
			exp[k] = pat(k, i);
		exp[0] = (uint8_t)i;
		LR_TEST_ASSERT_EQ(gen_send(fd, exp, len), 0);
	}
	double end = now_s() + WAIT_S;

	while (got < n && now_s() < end) {
		uint16_t k = lr_eth_rx_burst((uint16_t)port, 0, m, BURST);

		for (uint16_t j = 0; j < k; j++) {
			uint32_t pl, len = m[j]->pkt_len;

			if ((m[j]->ol_flags & LR_MBUF_F_RX_L4_CKSUM_PARTIAL) &&
			    ++partial && lr_net_cksum_offload(m[j]) != 0) {
				fprintf(stderr, "cannot complete checksum\n");
				return -1;
			}
			lr_pktmbuf_copy_out(m[j], f);
			lr_pktmbuf_free(m[j]);
			if (!is_udp_to(f, len, UDP_RX, &pl))
				continue; /* not ours */
			unsigned i = f[pl];
			uint32_t want = 1 + (i * 137) % 1400;

			for (uint32_t q = 0; q < want; q++)
				exp[q] = pat(q, i);
			exp[0] = (uint8_t)i;
			LR_TEST_ASSERT(i == got && len - pl == want &&
					   memcmp(f + pl, exp, want) == 0,
				       "datagram %u (as %u): %u bytes, want %u",
				       got, i, len - pl, want);
			LR_TEST_ASSERT(udp_sum_ok(f, len),
				       "datagram %u: bad UDP checksum", i);
			got++;
		}
	}
	close(fd);
	LR_TEST_ASSERT_EQ(got, n);
	/* The tap takes offloads: the stack left the checksums to us. */
	LR_TEST_ASSERT(partial > 0, "no partial checksum came (offloads?)");
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)port), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

enum tx_kind { TX_FULL, TX_FROM_LENGTHS, TX_PARTIAL, TX_CHAINED, TX_BAD };

/* Frame i (Ethernet/IPv4/UDP from 10.78.0.2 to KERN_IP:UDP_TX, payload
 * len bytes) as an mbuf with its checksums done the way kind says. */
static struct lr_mbuf *
tx_frame(uint16_t port, unsigned i, uint32_t len, enum tx_kind kind)
{
	static uint8_t f[2048];
	struct lr_ether_addr mac;
	uint32_t tot = 20 + 8 + len, fl = 14 + tot;
	struct lr_mbuf *m = lr_pktmbuf_alloc(pool), *m2;
	uint16_t c;

	if (m == NULL)
		return NULL;
	lr_eth_macaddr_get(port, &mac);
	memcpy(f, mac.addr_bytes, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x02\x08\x00", 8);
	memcpy(f + 14,
	       "\x45\x00\x00\x00\x00\x00\x40\x00\x40\x11\x00\x00"
	       "\x0a\x4e\x00\x02\x0a\x4e\x00\x01",
	       20);
	f[16] = (uint8_t)(tot >> 8);
	f[17] = (uint8_t)tot;
	f[18] = (uint8_t)i;
	f[34] = 0x30;
	f[35] = 0x39;
	f[36] = UDP_TX >> 8;
	f[37] = UDP_TX & 0xff;
	f[38] = (uint8_t)((8 + len) >> 8);
	f[39] = (uint8_t)(8 + len);
	f[40] = f[41] = 0;
	for (uint32_t k = 0; k < len; k++)
		f[42 + k] = pat(k, i);
	f[42] = (uint8_t)i;
	if (kind != TX_FROM_LENGTHS) {
		c = lr_net_ipv4_cksum(f + 14, 20);
		memcpy(f + 24, &c, 2);
	}
	if (kind == TX_PARTIAL) { /* pseudo-header sum, not inverted */
		c = lr_net_pseudo_sum(f + 14, 17, 8 + len);
		memcpy(f + 40, &c, 2);
	} else if (kind != TX_FROM_LENGTHS) {
		uint64_t s = lr_net_pseudo_sum(f + 14, 17, 8 + len);

		s += lr_net_cksum_buf(f + 34, 8 + len);
		c = (uint16_t)~lr_net_cksum_fold(s);
		if (kind == TX_BAD)
			c ^= 0x0101;
		memcpy(f + 40, &c, 2);
	}
	if (kind == TX_CHAINED && fl > 60 && (m2 = lr_pktmbuf_alloc(pool))) {
		memcpy(lr_pktmbuf_mtod(m, void *), f, 50);
		m->data_len = 50;
		memcpy(lr_pktmbuf_mtod(m2, void *), f + 50, fl - 50);
		m2->data_len = (uint16_t)(fl - 50);
		m->next = m2;
		m->nb_segs = 2;
		m->pkt_len = fl;
		return m;
	}
	memcpy(lr_pktmbuf_mtod(m, void *), f, fl);
	m->data_len = (uint16_t)fl;
	m->pkt_len = fl;
	if (kind == TX_FROM_LENGTHS) {
		m->ol_flags = LR_MBUF_F_TX_IP_CKSUM | LR_MBUF_F_TX_UDP_CKSUM;
		m->l2_len = 14;
		m->l3_len = 20;
	} else if (kind == TX_PARTIAL) {
		m->ol_flags = LR_MBUF_F_TX_L4_CKSUM;
		m->csum_start = 34;
		m->csum_offset = 6;
	}
	return m;
}

/* Port -> kernel: each kind of frame from queue q reaches a kernel socket
 * intact; TX_BAD is dropped and counted by the stack. */
static int
tx_kinds(uint16_t port, uint16_t q)
{
	static uint8_t buf[2048];
	static const enum tx_kind kinds[] = {TX_FULL, TX_FROM_LENGTHS,
					     TX_PARTIAL, TX_CHAINED};
	int fd = gen_udp(UDP_TX);
	long long errs0 = gen_udp_csum_errors();

	LR_TEST_ASSERT(fd >= 0 && errs0 >= 0, "socket, snmp in %s", net.ns_gen);
	for (unsigned i = 0; i < 40; i++) {
		enum tx_kind kind = kinds[i % LR_DIM(kinds)];
		uint32_t len = 1 + (i * 211) % 1400;
		struct lr_mbuf *m = tx_frame(port, i, len, kind);
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t r;

		if (m == NULL || lr_eth_tx_burst(port, q, &m, 1) != 1 ||
		    poll(&p, 1, WAIT_S * 1000) != 1) {
			close(fd);
			LR_TEST_ASSERT(0,
				       "frame %u (kind %d, %u bytes) not "
				       "received",
				       i, kind, len);
		}
		r = recv(fd, buf, sizeof(buf), 0);
		LR_TEST_ASSERT(r == (ssize_t)len && buf[0] == (uint8_t)i,
			       "frame %u: %zd bytes", i, r);
		for (uint32_t k = 1; k < len; k++)
			LR_TEST_ASSERT(buf[k] == pat(k, i), "frame %u byte %u",
				       i, k);
	}
	/* A wrong checksum: the stack drops it and counts it. The device
	 * left it unchecked, so the stack may queue it and check it when it
	 * is read (then the read drops it, counts it and finds nothing):
	 * wait until it is counted or queued, then read. */
	struct lr_mbuf *m = tx_frame(port, 99, 100, TX_BAD);
	struct pollfd p = {.fd = fd, .events = POLLIN};
	double end = now_s() + WAIT_S;
	int queued;

	LR_TEST_ASSERT_EQ(lr_eth_tx_burst(port, q, &m, 1), 1);
	while (gen_udp_csum_errors() != errs0 + 1 && poll(&p, 1, 20) == 0 &&
	       now_s() < end)
		;
	queued = recv(fd, buf, sizeof(buf), MSG_DONTWAIT) >= 0;
	close(fd);
	LR_TEST_ASSERT(!queued, "a datagram with a wrong checksum was read");
	LR_TEST_ASSERT_EQ(gen_udp_csum_errors(), errs0 + 1);
	return 0;
}

static int
test_port_to_kernel(void)
{
	struct lr_eth_stats st;
	int port;

	EAL_UP();
	port = tap_in_gen("t", "", 1);
	LR_TEST_ASSERT(port >= 0, "tap port");
	if (tx_kinds((uint16_t)port, 0))
		return -1;
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)port, &st), 0);
	LR_TEST_ASSERT_EQ(st.opackets, 41);
	LR_TEST_ASSERT_EQ(st.oerrors, 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)port), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* NFLOWS flows of PER_FLOW datagrams from the kernel; the queue of each
 * flow into flowq[] (-1: none seen). Frames on queues >= nq, or a flow
 * on two queues, fail. Returns the frames received. */
static int
flows_rx(uint16_t port, uint16_t nq, int *flowq, unsigned *queues_used)
{
	struct lr_mbuf *m[BURST];
	static uint8_t f[2048];
	int fds[NFLOWS];
	unsigned got = 0;

	*queues_used = 0;
	for (unsigned i = 0; i < NFLOWS; i++) {
		flowq[i] = -1;
		fds[i] = gen_udp((uint16_t)(20000 + i));
		if (fds[i] < 0)
			return -1;
		for (unsigned k = 0; k < PER_FLOW; k++) {
			uint8_t d[64] = {(uint8_t)i, (uint8_t)k};

			if (gen_send(fds[i], d, sizeof(d)) != 0)
				return -1;
		}
	}
	double end = now_s() + WAIT_S;

	while (got < NFLOWS * PER_FLOW && now_s() < end) {
		for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
			uint16_t k =
			    q < nq ? lr_eth_rx_burst(port, q, m, BURST) : 0;

			for (uint16_t j = 0; j < k; j++) {
				uint32_t pl, len = m[j]->pkt_len;

				lr_pktmbuf_copy_out(m[j], f);
				lr_pktmbuf_free(m[j]);
				if (!is_udp_to(f, len, UDP_RX, &pl))
					continue;
				unsigned fl = f[pl];

				if (fl >= NFLOWS ||
				    (flowq[fl] >= 0 && flowq[fl] != q)) {
					fprintf(stderr,
						"flow %u on queues %d and %u\n",
						fl, flowq[fl], q);
					return -1;
				}
				if (flowq[fl] < 0)
					*queues_used += 1;
				flowq[fl] = q;
				got++;
			}
		}
	}
	for (unsigned i = 0; i < NFLOWS; i++)
		close(fds[i]);
	/* Distinct queues among the flows. */
	unsigned used = 0;

	for (uint16_t q = 0; q < nq; q++)
		for (unsigned i = 0; i < NFLOWS; i++)
			if (flowq[i] == q) {
				used++;
				break;
			}
	*queues_used = used;
	return (int)got;
}

/* qpairs=4: flows spread over the queues, each flow on one; transmit from
 * the last queue; then two of four queues configured: all frames on them. */
static int
test_multi_queue(void)
{
	int flowq[NFLOWS], port;
	unsigned used;

	EAL_UP();
	port = tap_in_gen("m", ",qpairs=4", 4);
	LR_TEST_ASSERT(port >= 0, "tap port");
	LR_TEST_ASSERT_EQ(flows_rx((uint16_t)port, 4, flowq, &used),
			  NFLOWS * PER_FLOW);
	LR_TEST_ASSERT(used >= 2, "%d flows all on one queue", NFLOWS);
	if (tx_kinds((uint16_t)port, 3))
		return -1;
	/* Two queues of four: the other two are detached. */
	LR_TEST_ASSERT_EQ(lr_eth_dev_stop((uint16_t)port), 0);
	LR_TEST_ASSERT_EQ(port_start(port, 2), 0);
	LR_TEST_ASSERT_EQ(link_wait((uint16_t)port, 1), 0);
	LR_TEST_ASSERT_EQ(flows_rx((uint16_t)port, 2, flowq, &used),
			  NFLOWS * PER_FLOW);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)port), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* A queue the port does not drain: the kernel drops what does not fit
 * and the port counts it in imissed; every datagram is received or
 * missed. */
static int
test_kernel_drops(void)
{
	struct lr_mbuf *m[BURST];
	struct lr_eth_stats st;
	uint8_t d[64] = {0};
	const unsigned n = 3000;
	unsigned got = 0;
	int port, fd;

	EAL_UP();
	if (tap_and_sender("d", &port, &fd) != 0)
		return -1;
	for (unsigned i = 0; i < n; i++)
		LR_TEST_ASSERT_EQ(gen_send(fd, d, sizeof(d)), 0);
	close(fd);
	double end = now_s() + WAIT_S;

	do {
		uint16_t k = lr_eth_rx_burst((uint16_t)port, 0, m, BURST);

		got += k;
		lr_pktmbuf_free_bulk(m, k);
		LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)port, &st), 0);
	} while (got + st.imissed < n && now_s() < end);
	LR_TEST_ASSERT(st.imissed > 0, "no drop counted (%u received)", got);
	LR_TEST_ASSERT(got > 0, "nothing received");
	LR_TEST_ASSERT_EQ(got + st.imissed, n);
	LR_TEST_ASSERT_EQ(st.ipackets, got);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)port), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* Link: down while stopped, down when the interface is set down, up
 * again; the carrier the kernel side sees follows the port. */
static int
test_link(void)
{
	int port;

	EAL_UP();
	port = tap_in_gen("l", "", 1);
	LR_TEST_ASSERT(port >= 0, "tap port");
	LR_TEST_ASSERT_EQ(
	    lr_test_netns_sh("ip -n %s link set %s down", net.ns_gen, ifname),
	    0);
	LR_TEST_ASSERT_EQ(link_wait((uint16_t)port, 0), 0);
	LR_TEST_ASSERT_EQ(
	    lr_test_netns_sh("ip -n %s link set %s up", net.ns_gen, ifname), 0);
	LR_TEST_ASSERT_EQ(link_wait((uint16_t)port, 1), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_stop((uint16_t)port), 0);
	LR_TEST_ASSERT_EQ(link_wait((uint16_t)port, 0), 0);
	LR_TEST_ASSERT_EQ(
	    lr_test_netns_sh("ip -n %s link show %s | grep -q NO-CARRIER",
			     net.ns_gen, ifname),
	    0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_start((uint16_t)port), 0);
	LR_TEST_ASSERT_EQ(link_wait((uint16_t)port, 1), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)port), 0);
	return 0;
}

/* Whether interface name exists in this (the port's) namespace. */
static int
iface_exists(const char *name)
{
	return if_nametoindex(name) != 0;
}

/* mac=, the default name, persist and removal at close. */
static int
test_lifecycle(void)
{
	struct lr_ether_addr mac, want = {{0x02, 0x11, 0x22, 0x33, 0x44, 0x55}};
	char name[IFNAMSIZ], args[128];
	struct ifreq ifr;
	int port, fd;

	EAL_UP();
	/* Default name, created and removed with the port. */
	port = lr_eth_dev_create("net_tap0");
	LR_TEST_ASSERT(port >= 0, "net_tap0");
	LR_TEST_ASSERT_EQ(lr_eth_tap_ifname((uint16_t)port, name, sizeof(name)),
			  0);
	LR_TEST_ASSERT(strncmp(name, "lrtap", 5) == 0, "name %s", name);
	LR_TEST_ASSERT(iface_exists(name), "%s missing", name);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)port), 0);
	LR_TEST_ASSERT(!iface_exists(name), "%s left after close", name);
	LR_TEST_ASSERT_EQ(lr_eth_tap_ifname((uint16_t)port, name, sizeof(name)),
			  -ENODEV);
	port = lr_eth_dev_create("net_null0");
	LR_TEST_ASSERT(port >= 0, "net_null0");
	LR_TEST_ASSERT_EQ(lr_eth_tap_ifname((uint16_t)port, name, sizeof(name)),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)port), 0);

	/* mac=: the interface's address and the port's. */
	lr_test_netns_ifname(&net, "mac", name);
	snprintf(args, sizeof(args), "net_tap1,iface=%s,mac=02:11:22:33:44:55",
		 name);
	port = lr_eth_dev_create(args);
	LR_TEST_ASSERT(port >= 0, "%s", args);
	LR_TEST_ASSERT_EQ(lr_eth_macaddr_get((uint16_t)port, &mac), 0);
	LR_TEST_ASSERT(lr_ether_addr_equal(&mac, &want), "port mac");
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, name, strlen(name));
	LR_TEST_ASSERT(fd >= 0 && ioctl(fd, SIOCGIFHWADDR, &ifr) == 0,
		       "SIOCGIFHWADDR");
	close(fd);
	LR_TEST_ASSERT(memcmp(ifr.ifr_hwaddr.sa_data, want.addr_bytes, 6) == 0,
		       "interface mac");
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)port), 0);

	/* persist: the interface outlives the port; a port on an existing
	 * interface leaves it as it was. */
	lr_test_netns_ifname(&net, "ps", name);
	snprintf(args, sizeof(args), "net_tap0,iface=%s,persist", name);
	port = lr_eth_dev_create(args);
	LR_TEST_ASSERT(port >= 0, "%s", args);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)port), 0);
	LR_TEST_ASSERT(iface_exists(name), "persist: %s gone", name);
	snprintf(args, sizeof(args), "net_tap0,iface=%s,qpairs=2", name);
	port = lr_eth_dev_create(args);
	LR_TEST_ASSERT(port >= 0, "%s", args);
	LR_TEST_ASSERT_EQ(port_start(port, 2), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)port), 0);
	LR_TEST_ASSERT(iface_exists(name), "existing %s removed", name);
	LR_TEST_ASSERT_EQ(lr_test_netns_sh("ip link del %s", name), 0);
	LR_TEST_ASSERT(!iface_exists(name), "%s not deleted", name);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static int
test_bad_devargs(void)
{
	char arg[300], bad_if[IFNAMSIZ];
	const struct {
		const char *fmt;
		int err;
		const char *msg;
	} bad[] = {
	    {"net_tap3,iface=%s,colour=red", -EINVAL,
	     "net_tap3: unknown key 'colour' (value 'red')"},
	    {"net_tap3,iface=%s,mac=zz:11:22:33:44:55", -EINVAL,
	     "net_tap3: mac: bad value 'zz:11:22:33:44:55' (expected "
	     "xx:xx:xx:xx:xx:xx, a unicast address)"},
	    {"net_tap3,iface=%s,mac=01:00:5e:00:00:01", -EINVAL,
	     "net_tap3: mac: bad value '01:00:5e:00:00:01'"},
	    {"net_tap3,iface=%s,mac=02:11:22:33:44", -EINVAL,
	     "net_tap3: mac: bad value '02:11:22:33:44'"},
	    {"net_tap3,iface=%s,mac=02:11:22:33:44:55:66", -EINVAL,
	     "net_tap3: mac: bad value '02:11:22:33:44:55:66'"},
	    {"net_tap3,iface=averyveryverylongname", -EINVAL,
	     "net_tap3: iface: bad value 'averyveryverylongname' (interface "
	     "names have at most 15 characters)"},
	    {"net_tap3,iface=", -EINVAL, "net_tap3: iface: bad value ''"},
	    {"net_tap3,iface=a/b", -EINVAL, "net_tap3: iface: bad value 'a/b'"},
	    {"net_tap3,iface=%s,qpairs=0", -EINVAL,
	     "net_tap3: qpairs: bad value '0'"},
	    {"net_tap3,iface=%s,qpairs=17", -EINVAL,
	     "net_tap3: qpairs: bad value '17'"},
	    {"net_tap3,iface=%s,persist=maybe", -EINVAL,
	     "net_tap3: persist: bad value 'maybe'"},
	    {"net_tap3,iface=%s,qpairs", -EINVAL,
	     "net_tap3: 'qpairs': expected key=value"},
	    {"net_tap3,iface=lo", -EINVAL,
	     "net_tap3: iface: cannot attach to 'lo' (queue 0): Invalid "
	     "argument (an interface that exists must be a TAP made with "
	     "multi_queue)"},
	};

	EAL_UP();
	unsigned before = lr_eth_dev_count_avail();

	lr_test_netns_ifname(&net, "bad", bad_if);
	for (unsigned i = 0; i < LR_DIM(bad); i++) {
		snprintf(arg, sizeof(arg), bad[i].fmt, bad_if);
		lr_test_log_begin();
		int r = lr_eth_dev_create(arg);
		const char *t = lr_test_log_end();

		LR_TEST_ASSERT(r == bad[i].err, "'%s' gave %d", arg, r);
		LR_TEST_ASSERT(strstr(t, bad[i].msg),
			       "'%s': log '%s' lacks '%s'", arg, t, bad[i].msg);
		LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), before);
		LR_TEST_ASSERT(!iface_exists(bad_if), "'%s' left %s", arg,
			       bad_if);
	}
	return 0;
}

static const struct lr_test_case cases[] = {
    {"kernel_to_port", test_kernel_to_port},
    {"port_to_kernel", test_port_to_kernel},
    {"multi_queue", test_multi_queue},
    {"kernel_drops", test_kernel_drops},
    {"link", test_link},
    {"lifecycle", test_lifecycle},
    {"bad_devargs", test_bad_devargs},
};

static int
run_cases(int argc, char **argv)
{
	int r = lr_test_run("pmd_tap", cases, (int)LR_DIM(cases), argc, argv);
	uint16_t p;

	LR_ETH_FOREACH_DEV(p)
	lr_eth_dev_close(p);
	lr_mempool_free(pool);
	return r;
}

int
main(int argc, char **argv)
{
	int r;

	if (lr_eth_driver_find("net_tap") == NULL) {
		printf("skip: net_tap is not built in\n");
		return LR_TEST_SKIP;
	}
	if (access("/dev/net/tun", R_OK | W_OK) != 0) {
		printf("skip: no /dev/net/tun here\n");
		return LR_TEST_SKIP;
	}
	r = lr_test_netns_check();
	if (r != 0)
		return r;
	lr_test_netns_init(&net, "lrtp");
	return lr_test_netns_run(&net, NULL, run_cases, argc, argv);
}
