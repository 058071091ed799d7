// SPDX-License-Identifier: BSD-3-Clause
// A C++17 program built against the installed linerate (test_embed.sh):
// every installed header at once, inline ring, mempool and mbuf paths
// instantiated in C++, and every driver named on the command line found
// registered (their constructors ran, whether the libraries were linked
// shared or as whole static archives), and every plugin driver named as
// plugin:NAME loaded when a port names it (LR_PLUGIN_PATH). No EAL: the
// first pool sets up the default heap.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <lr_common.h>
#include <lr_cycles.h>
#include <lr_devargs.h>
#include <lr_eal.h>
#include <lr_errno.h>
#include <lr_eth_ring.h>
#include <lr_ethdev.h>
#include <lr_ethdev_driver.h>
#include <lr_ether.h>
#include <lr_lcore.h>
#include <lr_log.h>
#include <lr_mbuf.h>
#include <lr_memory.h>
#include <lr_mempool.h>
#include <lr_net.h>
#include <lr_page_pool.h>
#include <lr_pagealloc.h>
#include <lr_ring.h>

static int failures;

static void
check(bool ok, const std::string &what)
{
	std::printf("%s: %s\n", what.c_str(), ok ? "ok" : "FAILED");
	if (!ok)
		failures++;
}

int
main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *p = argv[i];

		if (std::strncmp(p, "plugin:", 7) != 0) {
			check(lr_eth_driver_find(p) != nullptr,
			      std::string("driver ") + p);
			continue;
		}
		// A plugin driver: not in the program until a port names it;
		// an unknown key then fails after the plugin registered it,
		// before its probe (DPDK never starts).
		p += 7;
		check(lr_eth_driver_find(p) == nullptr,
		      std::string("plugin ") + p + " not linked in");
		int r = lr_eth_dev_create(
		    (std::string(p) + "0,lr_embed_no_such_key=1").c_str());
		check(r == -EINVAL && lr_eth_driver_find(p) != nullptr,
		      std::string("plugin ") + p + " loaded");
	}

	struct lr_ring *r = lr_ring_create("cxx_ring", 64, LR_SOCKET_ID_ANY,
					   LR_RING_F_SP_ENQ | LR_RING_F_SC_DEQ);
	check(r != nullptr, "ring create");
	if (r != nullptr) {
		std::vector<void *> in(32), out(32);
		for (size_t i = 0; i < in.size(); i++)
			in[i] = &in[i];
		unsigned n = lr_ring_enqueue_burst(r, in.data(), 32, nullptr);
		unsigned m = lr_ring_dequeue_burst(r, out.data(), 32, nullptr);
		check(n == 32 && m == 32 && out == in, "ring round trip");
		lr_ring_free(r);
	}

	struct lr_mempool *mp =
		lr_pktmbuf_pool_create("cxx_mbufs", 1023, 32, 0, 2048,
				       LR_SOCKET_ID_ANY);
	check(mp != nullptr, "mbuf pool create");
	if (mp == nullptr) {
		std::printf("lr_errno: %s\n", lr_strerror(lr_errno));
		return 1;
	}
	struct lr_mbuf *m = lr_pktmbuf_alloc(mp);
	check(m != nullptr, "mbuf alloc");
	if (m != nullptr) {
		char *p = static_cast<char *>(lr_pktmbuf_append(m, 60));
		if (p != nullptr)
			std::memset(p, 0xab, 60);
		check(p != nullptr && lr_pktmbuf_pkt_len(m) == 60,
		      "mbuf append");
		lr_pktmbuf_free(m);
	}
	check(lr_mempool_in_use_count(mp) == 0 && lr_mempool_validate(mp) == 0,
	      "pool back to full");
	lr_mempool_free(mp);
	std::printf("embed-cxx: %s\n", failures ? "FAILED" : "OK");
	return failures ? 1 : 0;
}
