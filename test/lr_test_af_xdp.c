/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_test_af_xdp.c - what the net_af_xdp tests (test_pmd_af_xdp.c,
 * test_pmd_af_xdp_setup.c) share (lr_test_af_xdp.h): the veth topology and
 * its interface names, numbered frames sent by a raw socket, ports brought
 * up and down with their UMEM pools checked, the EAL and the tests' pool,
 * and the main() that runs the cases in the topology.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_cycles.h"
#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_log.h"
#include "lr_mbuf.h"
#include "lr_test.h"
#include "lr_test_netns.h"
#include "lr_test_af_xdp.h"

/* Before the #if: the program's main() without the driver. */
int
lr_test_af_xdp_absent(void)
{
	printf("skip: net_af_xdp is not built in (libxdp/libbpf missing or "
	       "-Ddisable_drivers)\n");
	return LR_TEST_SKIP;
}

#ifdef LR_TEST_HAVE_AF_XDP
struct lr_test_netns net;
char if_g0[IFNAMSIZ], if_g1[IFNAMSIZ], if_f0[IFNAMSIZ], if_f1[IFNAMSIZ];
char if_m0[IFNAMSIZ], if_n0[IFNAMSIZ];
struct lr_mempool *pool;
char self_dir[512];
int two_lcores;

/* ------------------------------------------------------------------ */
/* Topology. */

/* scripts/netns.sh's two pairs plus one with two queues. */
static const char *const pairs[] = {"g0:f0", "g1:f1", "m0:n0:2", NULL};

/* A raw socket on ifname in the generator namespace (the calling thread
 * comes back to the forwarder namespace); fd or -1. proto 0: send only. */
int
gen_socket(const char *ifname, int proto)
{
	return lr_test_netns_raw_socket(&net, ifname, proto, 1);
}

/* ------------------------------------------------------------------ */
/* Frames. */

/* Frame i of len bytes, flow `flow` (UDP source port): Ethernet to a
 * unicast address nobody has, IPv4, UDP, payload from i. */
void
make_frame(uint8_t *d, unsigned i, uint32_t len, unsigned flow)
{
	static const uint8_t hdr[] = {
	    0x02, 0,	0,    0, 0, 0x0a, 0x02, 0, 0, 0, 0,  0x0b,
	    0x08, 0x00, 0x45, 0, 0, 0,	  0,	0, 0, 0, 64, 17,
	    0,	  0,	10,   0, 0, 1,	  10,	0, 0, 2,
	};
	uint16_t tot = htons((uint16_t)(len - 14));

	memcpy(d, hdr, sizeof(hdr));
	memcpy(d + 16, &tot, 2);
	d[34] = (uint8_t)((2000 + flow) >> 8);
	d[35] = (uint8_t)(2000 + flow);
	d[36] = 0x10;
	d[37] = 0xe1;
	for (uint32_t k = 38; k < len; k++)
		d[k] = (uint8_t)(i * 7 + k);
	if (len >= 42) {
		memcpy(d + 38, &i, 4);
	}
}

uint32_t
size_of(unsigned i)
{
	static const uint32_t sizes[] = {60, 64, 99, 128, 256, 512, 1000, 1514};

	return sizes[i % LR_DIM(sizes)];
}

/* Send n frames (sizes cycling, flows 0..nflows-1) on raw socket fd. */
int
send_frames(int fd, unsigned first, unsigned n, unsigned nflows)
{
	uint8_t buf[MAXF];

	for (unsigned i = first; i < first + n; i++) {
		uint32_t len = size_of(i);

		make_frame(buf, i, len, i % nflows);
		if (send(fd, buf, len, 0) != (ssize_t)len)
			return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Ports. */

/* Create, configure with nq queues and start; port id or negative. */
int
port_up(const char *args, uint16_t nq)
{
	int port = lr_eth_dev_create(args), ret;

	if (port < 0)
		return port;
	ret = lr_eth_dev_configure((uint16_t)port, nq, nq, NULL);
	for (uint16_t q = 0; ret == 0 && q < nq; q++) {
		ret = lr_eth_rx_queue_setup((uint16_t)port, q, 512,
					    lr_socket_id(), NULL, pool);
		if (ret == 0)
			ret = lr_eth_tx_queue_setup((uint16_t)port, q, 512,
						    lr_socket_id(), NULL);
	}
	if (ret == 0)
		ret = lr_eth_dev_start((uint16_t)port);
	if (ret != 0) {
		lr_eth_dev_close((uint16_t)port);
		return ret;
	}
	return port;
}

/* After stop: every frame of every UMEM pool of the port is free and the
 * pool's invariant holds. */
int
check_umem(uint16_t port, uint16_t nq)
{
	for (uint16_t q = 0; q < nq; q++) {
		struct lr_mempool *mp = lr_eth_af_xdp_umem_pool(port, q);

		LR_TEST_ASSERT(mp != NULL, "port %u queue %u: no UMEM pool",
			       port, q);
		LR_TEST_ASSERT_EQ(lr_mempool_validate(mp), 0);
		LR_TEST_ASSERT_EQ(lr_eth_af_xdp_kernel_frames(port, q), 0);
		LR_TEST_ASSERT(lr_mempool_in_use_count(mp) == 0,
			       "port %u queue %u: %u frames in use", port, q,
			       lr_mempool_in_use_count(mp));
	}
	return 0;
}

int
port_down(uint16_t port, uint16_t nq)
{
	LR_TEST_ASSERT_EQ(lr_eth_dev_stop(port), 0);
	if (check_umem(port, nq) != 0)
		return -1;
	LR_TEST_ASSERT_EQ(lr_eth_dev_close(port), 0);
	return 0;
}

/* A started one-queue port `name` on f0, its UMEM pool into *umem and a
 * raw socket on g0 that receives everything into *fd; the port id, or a
 * negative errno (nothing left open). */
int
f0_port_g0_socket(const char *name, struct lr_mempool **umem, int *fd)
{
	char args[96];
	int port;

	snprintf(args, sizeof(args), "%s,iface=%s", name, if_f0);
	port = port_up(args, 1);
	if (port < 0)
		return port;
	*umem = lr_eth_af_xdp_umem_pool((uint16_t)port, 0);
	*fd = gen_socket(if_g0, ETH_P_ALL);
	if (*fd < 0) {
		lr_eth_dev_stop((uint16_t)port);
		lr_eth_dev_close((uint16_t)port);
		return -EIO;
	}
	return port;
}

/* Poll queue q of port until want frames came or 2 s passed; how many. */
unsigned
poll_rx(uint16_t port, uint16_t q, struct lr_mbuf **out, unsigned want)
{
	uint64_t end = lr_get_tsc_cycles() + 2 * lr_get_tsc_hz();
	unsigned got = 0;

	while (got < want && lr_get_tsc_cycles() < end) {
		unsigned k = LR_MIN(want - got, (unsigned)BURST);

		got += lr_eth_rx_burst(port, q, out + got, (uint16_t)k);
	}
	return got;
}

/* ------------------------------------------------------------------ */
/* The program's frame. */

int
lr_test_af_xdp_eal(char *argv0, const char *name)
{
	char pfx[64];
	char *eal_argv[] = {argv0,
			    "-l",
			    "0-1",
			    "--no-huge",
			    "-m",
			    "256",
			    lr_test_prefix_arg(pfx, sizeof(pfx), name),
			    NULL};

	if (lr_eal_init(7, eal_argv) < 0) {
		eal_argv[2] = "0";
		if (lr_eal_init(7, eal_argv) < 0) {
			fprintf(stderr, "lr_eal_init failed\n");
			return 1;
		}
	}
	two_lcores = lr_lcore_count() >= 2;
	pool = lr_pktmbuf_pool_create("afxdp_test", 4096, 64, 0,
				      LR_MBUF_DEFAULT_BUF_SIZE, lr_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "pool: %s\n", lr_strerror(lr_errno));
		return 1;
	}
	return 0;
}

int
lr_test_af_xdp_end(int rc)
{
	if (lr_mempool_in_use_count(pool) != 0) {
		fprintf(stderr, "test pool: %u mbufs in use at the end\n",
			lr_mempool_in_use_count(pool));
		rc = 1;
	}
	lr_mempool_free(pool);
	lr_eal_cleanup();
	return rc;
}

int
lr_test_af_xdp_main(const char *tag, int (*run_cases)(int, char **), int argc,
		    char **argv)
{
	ssize_t n;
	int r;

	r = lr_test_netns_check();
	if (r != 0)
		return r;
	if (lr_eth_driver_find("net_af_xdp") == NULL) {
		printf(
		    "skip: net_af_xdp is not built in (-Ddisable_drivers)\n");
		return LR_TEST_SKIP;
	}
	n = readlink("/proc/self/exe", self_dir, sizeof(self_dir) - 1);
	if (n > 0) {
		self_dir[n] = '\0';
		*strrchr(self_dir, '/') = '\0';
	}
	lr_test_netns_init(&net, tag);
	lr_test_netns_ifname(&net, "g0", if_g0);
	lr_test_netns_ifname(&net, "g1", if_g1);
	lr_test_netns_ifname(&net, "f0", if_f0);
	lr_test_netns_ifname(&net, "f1", if_f1);
	lr_test_netns_ifname(&net, "m0", if_m0);
	lr_test_netns_ifname(&net, "n0", if_n0);
	return lr_test_netns_run(&net, pairs, run_cases, argc, argv);
}
#endif /* LR_TEST_HAVE_AF_XDP */
