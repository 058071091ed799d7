/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports: devargs parsing and every bad-devargs error, the port lifecycle,
 * the null and ring drivers moving and counting packets, stats reset,
 * extended stats, --vdev probing, and functions on ports that do not
 * exist. */
#include <errno.h>
#include <net/if.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lr_devargs.h"
#include "lr_eal.h"
#include "lr_eth_iface.h"
#include "lr_eth_ring.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"
#include "lr_ring.h"
#include "lr_test.h"
#include "lr_test_port.h"

static struct lr_mempool *pool;
#define POOL_SIZE 2048

static int
eal_up(void)
{
	char prefix[64];
	char *argv[] = {
	    "test_ethdev",
	    "-l",
	    "0",
	    "--no-huge",
	    "-m",
	    "128",
	    lr_test_prefix_arg(prefix, sizeof(prefix), "test_ethdev"),
	    "--vdev",
	    "net_null7,size=60",
	    "--vdev",
	    "net_ring8",
	    NULL};

	if (!lr_eal_initialized() && lr_eal_init(11, argv) < 0)
		return -1;
	pool = lr_test_pool("test_ethdev", POOL_SIZE, 32);
	return pool != NULL ? 0 : -1;
}

#define EAL_UP() LR_TEST_ASSERT(eal_up() == 0, "EAL/pool setup failed")

/* Configure one port with nq rx/tx queues on the test pool and start it. */
static int
port_setup(uint16_t port, uint16_t nq, uint16_t nb_desc)
{
	return lr_test_port_start(port, nq, nb_desc, pool);
}

static int
test_devargs_parse(void)
{
	struct lr_devargs da;
	uint64_t v;
	int b;

	LR_TEST_ASSERT_EQ(lr_devargs_parse(&da, "net_null0"), 0);
	LR_TEST_ASSERT(strcmp(da.name, "net_null0") == 0, "name %s", da.name);
	LR_TEST_ASSERT_EQ(da.count, 0);
	LR_TEST_ASSERT_EQ(
	    lr_devargs_parse(&da,
			     "net_x1,size=128,copy=1,iface=a,iface=b,empty="),
	    0);
	LR_TEST_ASSERT_EQ(da.count, 5);
	LR_TEST_ASSERT_EQ(lr_devargs_count(&da, "iface"), 2);
	LR_TEST_ASSERT(strcmp(lr_devargs_get_nth(&da, "iface", 1), "b") == 0,
		       "second iface");
	LR_TEST_ASSERT(strcmp(lr_devargs_get(&da, "empty"), "") == 0, "empty");
	LR_TEST_ASSERT(lr_devargs_get(&da, "none") == NULL, "absent key");
	LR_TEST_ASSERT_EQ(lr_devargs_get_uint(&da, "size", 64, 1, 9600, &v), 0);
	LR_TEST_ASSERT_EQ(v, 128);
	LR_TEST_ASSERT_EQ(lr_devargs_get_uint(&da, "nokey", 64, 1, 9600, &v),
			  0);
	LR_TEST_ASSERT_EQ(v, 64);
	LR_TEST_ASSERT_EQ(lr_devargs_get_bool(&da, "copy", 0, &b), 0);
	LR_TEST_ASSERT_EQ(b, 1);
	LR_TEST_ASSERT_EQ(lr_devargs_get_uint(&da, "iface", 0, 0, 9, &v),
			  -EINVAL);
	/* Bare flag keys (DPDK's `persist`): only those listed. */
	static const char *const flags[] = {"persist", NULL};

	LR_TEST_ASSERT_EQ(
	    lr_devargs_parse_flags(&da, "net_x1,persist,size=1", flags), 0);
	LR_TEST_ASSERT_EQ(da.count, 2);
	LR_TEST_ASSERT(strcmp(lr_devargs_get(&da, "persist"), "1") == 0,
		       "bare flag reads as 1");
	LR_TEST_ASSERT_EQ(lr_devargs_get_bool(&da, "persist", 0, &b), 0);
	LR_TEST_ASSERT_EQ(b, 1);
	LR_TEST_ASSERT_EQ(
	    lr_devargs_parse_flags(&da, "net_x1,persist=no", flags), 0);
	LR_TEST_ASSERT(strcmp(lr_devargs_get(&da, "persist"), "no") == 0,
		       "flag with a value");
	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(lr_devargs_parse_flags(&da, "net_x1,size", flags),
			  -EINVAL);
	LR_TEST_ASSERT(
	    strstr(lr_test_log_end(), "net_x1: 'size': expected key=value"),
	    "a bare key not listed");
	LR_TEST_ASSERT_EQ(lr_devargs_parse(&da, "p,n=0x10"), 0);
	LR_TEST_ASSERT_EQ(lr_devargs_get_uint(&da, "n", 0, 0, 100, &v), 0);
	LR_TEST_ASSERT_EQ(v, 16);
	/* A bracketed value keeps its commas (and inner brackets). */
	LR_TEST_ASSERT_EQ(lr_devargs_parse(&da,
					   "net_dpdk0,dev=[net_null0,size=128],"
					   "a=[x[1,2]],b=[],c=2"),
			  0);
	LR_TEST_ASSERT_EQ(da.count, 4);
	LR_TEST_ASSERT(
	    strcmp(lr_devargs_get(&da, "dev"), "net_null0,size=128") == 0,
	    "dev '%s'", lr_devargs_get(&da, "dev"));
	LR_TEST_ASSERT(strcmp(lr_devargs_get(&da, "a"), "x[1,2]") == 0,
		       "a '%s'", lr_devargs_get(&da, "a"));
	LR_TEST_ASSERT(strcmp(lr_devargs_get(&da, "b"), "") == 0, "b");
	LR_TEST_ASSERT(strcmp(lr_devargs_get(&da, "c"), "2") == 0, "c");
	LR_TEST_ASSERT_EQ(lr_devargs_parse(&da, "p,dev=[a,b]"), 0);
	LR_TEST_ASSERT(strcmp(lr_devargs_get(&da, "dev"), "a,b") == 0, "end");
	/* A '[' later in a value is an ordinary character. */
	LR_TEST_ASSERT_EQ(lr_devargs_parse(&da, "p,k=a[b,j=1"), 0);
	LR_TEST_ASSERT(strcmp(lr_devargs_get(&da, "k"), "a[b") == 0, "a[b");
	/* permission bits, in octal */
	unsigned mode;

	LR_TEST_ASSERT_EQ(lr_devargs_parse(&da, "p,a=0660,b=644,c=0"), 0);
	LR_TEST_ASSERT_EQ(lr_devargs_get_mode(&da, "a", 0600, &mode), 0);
	LR_TEST_ASSERT_EQ(mode, 0660);
	LR_TEST_ASSERT_EQ(lr_devargs_get_mode(&da, "b", 0600, &mode), 0);
	LR_TEST_ASSERT_EQ(mode, 0644);
	LR_TEST_ASSERT_EQ(lr_devargs_get_mode(&da, "c", 0600, &mode), 0);
	LR_TEST_ASSERT_EQ(mode, 0);
	LR_TEST_ASSERT_EQ(lr_devargs_get_mode(&da, "d", 0600, &mode), 0);
	LR_TEST_ASSERT_EQ(mode, 0600);
	static const char *const bad_modes[] = {
	    "0999", "1777", "-600", "+600", " 600", "rw", "", "0x1ff", "06000"};
	for (unsigned i = 0; i < LR_DIM(bad_modes); i++) {
		char arg[64], want[64];

		snprintf(arg, sizeof(arg), "p,m=%s", bad_modes[i]);
		snprintf(want, sizeof(want),
			 "p: m: bad value '%s' (expected octal permission bits",
			 bad_modes[i]);
		LR_TEST_ASSERT_EQ(lr_devargs_parse(&da, arg), 0);
		lr_test_log_begin();
		int r = lr_devargs_get_mode(&da, "m", 0600, &mode);
		const char *t = lr_test_log_end();

		LR_TEST_ASSERT(r == -EINVAL && strstr(t, want),
			       "mode '%s': %d, log '%s'", bad_modes[i], r, t);
	}

	static const struct lr_test_refused bad[] = {
	    {"", -EINVAL, "no port name"},
	    {",size=1", -EINVAL, "no port name"},
	    {"net_null0,size", -EINVAL,
	     "net_null0: 'size': expected key=value"},
	    {"net_null0,=5", -EINVAL, "net_null0: '=5': expected key=value"},
	    {"net_null0,,size=1", -EINVAL, "net_null0: '': expected key=value"},
	    {"net null0", -EINVAL, "bad character ' ' in port name"},
	    {"net_null0,si+ze=1", -EINVAL,
	     "net_null0: bad character '+' in key 'si+ze' (value '1')"},
	    {"net_null0,-size=1", -EINVAL,
	     "net_null0: bad character '-' in key '-size' (value '1')"},
	    {"net_dpdk0,dev=[net_null0,size=1", -EINVAL,
	     "net_dpdk0: dev: '[' without its ']' in '[net_null0,size=1'"},
	    {"net_dpdk0,dev=[net_null0]x,a=1", -EINVAL,
	     "net_dpdk0: dev: text after ']' (expected ',' or the end): "
	     "'x,a=1'"},
	};
	for (unsigned i = 0; i < LR_DIM(bad); i++) {
		lr_test_log_begin();
		int r = lr_devargs_parse(&da, bad[i].args);
		const char *t = lr_test_log_end();

		LR_TEST_ASSERT(r == bad[i].err, "'%s' gave %d", bad[i].args, r);
		LR_TEST_ASSERT(strstr(t, bad[i].msg),
			       "'%s': log '%s' lacks '%s'", bad[i].args, t,
			       bad[i].msg);
	}
	/* Too many pairs. */
	char many[LR_DEVARGS_MAX_LEN] = "p";
	for (int i = 0; i <= LR_DEVARGS_MAX_PAIRS; i++)
		strcat(many, ",k=1");
	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(lr_devargs_parse(&da, many), -ENOSPC);
	LR_TEST_ASSERT(strstr(lr_test_log_end(), "more than"),
		       "too many pairs");
	return 0;
}

static int
test_bad_devargs(void)
{
	static const struct lr_test_refused bad[] = {
	    {"net_bogus0", -ENOENT, "net_bogus0: no driver"},
	    {"net_null0,sise=64", -EINVAL,
	     "net_null0: unknown key 'sise' (value '64'); valid keys: size, "
	     "copy, no-rx"},
	    {"net_null0,no-rx=2", -EINVAL,
	     "net_null0: no-rx: bad value '2' (expected 0 or 1)"},
	    {"net_null0,copy=1,no-rx=1", -EINVAL,
	     "net_null0: copy=1 and no-rx=1 together"},
	    {"net_null0,size=abc", -EINVAL,
	     "net_null0: size: bad value 'abc' (expected an integer in "
	     "14..9600)"},
	    {"net_null0,size=0", -EINVAL, "net_null0: size: bad value '0'"},
	    /* No runts: at least an Ethernet header. */
	    {"net_null0,size=13", -EINVAL, "net_null0: size: bad value '13'"},
	    {"net_null0,size=70000", -EINVAL,
	     "net_null0: size: bad value '70000'"},
	    {"net_null0,size=-1", -EINVAL, "net_null0: size: bad value '-1'"},
	    {"net_null0,size=", -EINVAL, "net_null0: size: bad value ''"},
	    {"net_null0,copy=2", -EINVAL,
	     "net_null0: copy: bad value '2' (expected 0 or 1)"},
	    {"net_null0,size=64,size=128", -EINVAL,
	     "net_null0: size: given more than once"},
	    {"net_ring0,size=64", -EINVAL,
	     "net_ring0: unknown key 'size' (value '64'); valid keys: none"},
	    {"net_ringx", -EINVAL, "net_ringx: net_ring ports are named"},
	    {"net_ring01", -EINVAL, "net_ring01: net_ring ports are named"},
	    {"net_null0,size", -EINVAL, "expected key=value"},
	};

	EAL_UP();
	unsigned before = lr_eth_dev_count_avail();

	for (unsigned i = 0; i < LR_DIM(bad); i++) {
		if (lr_test_port_refused(bad[i].args, bad[i].err, bad[i].msg))
			return -1;
		/* Nothing half-created. */
		LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), before);
		LR_TEST_ASSERT_EQ(lr_eth_dev_validate(), 0);
	}
	/* A name in use. */
	int p = lr_eth_dev_create("net_null0");

	LR_TEST_ASSERT(p >= 0, "create net_null0: %d", p);
	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(lr_eth_dev_create("net_null0,size=128"), -EEXIST);
	LR_TEST_ASSERT(
	    strstr(lr_test_log_end(), "net_null0: a port of that name exists"),
	    "EEXIST message");
	LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), before + 1);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)p), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), before);
	return 0;
}

static int
test_no_such_port(void)
{
	struct lr_eth_stats st;
	struct lr_eth_link link;
	struct lr_eth_dev_info info;
	struct lr_ether_addr mac = {{2, 0, 0, 0, 0, 1}};
	uint16_t mtu;
	uint64_t v;
	struct lr_mbuf *m[4];

	EAL_UP();
	const uint16_t ports[] = {29, LR_MAX_ETHPORTS, 1000};

	for (unsigned i = 0; i < LR_DIM(ports); i++) {
		uint16_t p = ports[i];
		char want[64];

		LR_TEST_ASSERT(!lr_eth_dev_is_valid_port(p), "port %u valid",
			       p);
		LR_TEST_ASSERT(lr_eth_dev_name(p) == NULL, "name of %u", p);
		lr_test_log_begin();
		int r[] = {
		    lr_eth_dev_configure(p, 1, 1, NULL),
		    lr_eth_rx_queue_setup(p, 0, 64, -1, NULL, pool),
		    lr_eth_tx_queue_setup(p, 0, 64, -1, NULL),
		    lr_eth_dev_start(p),
		    lr_eth_dev_stop(p),
		    lr_eth_dev_close(p),
		    lr_eth_stats_get(p, &st),
		    lr_eth_stats_reset(p),
		    lr_eth_link_get(p, &link),
		    lr_eth_dev_info_get(p, &info),
		    lr_eth_macaddr_get(p, &mac),
		    lr_eth_dev_default_mac_addr_set(p, &mac),
		    lr_eth_promiscuous_enable(p),
		    lr_eth_promiscuous_get(p),
		    lr_eth_dev_set_mtu(p, 1500),
		    lr_eth_dev_get_mtu(p, &mtu),
		    lr_eth_xstats_get(p, NULL, 0),
		    lr_eth_xstats_get_by_name(p, "rx_good_packets", &v),
		    lr_eth_dev_dump(stderr, p),
		};
		const char *t = lr_test_log_end();

		for (unsigned k = 0; k < LR_DIM(r); k++)
			LR_TEST_ASSERT(r[k] == -ENODEV, "port %u call %u: %d",
				       p, k, r[k]);
		snprintf(want, sizeof(want), "port %u: no such port", p);
		LR_TEST_ASSERT(strstr(t, want), "log lacks '%s'", want);
		LR_TEST_ASSERT_EQ(lr_eth_rx_burst(p, 0, m, 4), 0);
		LR_TEST_ASSERT_EQ(lr_eth_tx_burst(p, 0, m, 4), 0);
	}
	return 0;
}

static int
test_lifecycle(void)
{
	struct lr_eth_dev_info info;
	struct lr_eth_link link;
	struct lr_ether_addr mac, set = {{0x02, 1, 2, 3, 4, 5}},
				  bad = {{0x01, 0, 0, 0, 0, 1}};
	struct lr_mbuf *m[32];
	uint16_t mtu, id;
	int a, b, c;

	EAL_UP();
	unsigned base = lr_eth_dev_count_avail();

	a = lr_eth_dev_create("net_null10");
	b = lr_eth_dev_create("net_null11,size=128,copy=1");
	LR_TEST_ASSERT(a >= 0 && b == a + 1, "ids %d %d not dense", a, b);
	LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), base + 2);
	LR_TEST_ASSERT_EQ(lr_eth_dev_get_port_by_name("net_null11", &id), 0);
	LR_TEST_ASSERT_EQ(id, b);
	LR_TEST_ASSERT(strcmp(lr_eth_dev_name((uint16_t)a), "net_null10") == 0,
		       "name");
	LR_TEST_ASSERT_EQ(lr_eth_dev_info_get((uint16_t)a, &info), 0);
	LR_TEST_ASSERT(strcmp(info.driver_name, "net_null") == 0, "driver %s",
		       info.driver_name);
	LR_TEST_ASSERT(info.max_rx_queues >= 2, "queues %u",
		       info.max_rx_queues);

	/* Not configured: setup and start refuse. */
	LR_TEST_ASSERT_EQ(
	    lr_eth_rx_queue_setup((uint16_t)a, 0, 64, -1, NULL, pool), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eth_dev_start((uint16_t)a), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eth_dev_configure((uint16_t)a, 0, 0, NULL),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eth_dev_configure((uint16_t)a, 99, 1, NULL),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eth_dev_configure((uint16_t)a, 2, 2, NULL), 0);
	/* Queues not set up: start refuses. */
	LR_TEST_ASSERT_EQ(lr_eth_dev_start((uint16_t)a), -EINVAL);
	LR_TEST_ASSERT_EQ(
	    lr_eth_rx_queue_setup((uint16_t)a, 2, 64, -1, NULL, pool), -EINVAL);
	LR_TEST_ASSERT_EQ(
	    lr_eth_rx_queue_setup((uint16_t)a, 0, 64, -1, NULL, NULL), -EINVAL);
	LR_TEST_ASSERT_EQ(
	    lr_eth_rx_queue_setup((uint16_t)a, 0, 0, -1, NULL, pool), -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eth_dev_validate(), 0);
	LR_TEST_ASSERT_EQ(port_setup((uint16_t)a, 2, 256), 0);
	LR_TEST_ASSERT(lr_eth_dev_is_started((uint16_t)a), "started");
	LR_TEST_ASSERT_EQ(lr_eth_dev_validate(), 0);
	LR_TEST_ASSERT_EQ(lr_eth_link_get((uint16_t)a, &link), 0);
	LR_TEST_ASSERT_EQ(link.link_status, 1);
	/* Started: configure and setup refuse. */
	LR_TEST_ASSERT_EQ(lr_eth_dev_configure((uint16_t)a, 1, 1, NULL),
			  -EBUSY);
	LR_TEST_ASSERT_EQ(lr_eth_tx_queue_setup((uint16_t)a, 0, 64, -1, NULL),
			  -EBUSY);
	/* Packets flow on both queues. */
	for (uint16_t q = 0; q < 2; q++) {
		LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)a, q, m, 32), 32);
		LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)a, q, m, 32), 32);
	}
	/* Queue beyond the configured count: nothing. */
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)a, 2, m, 32), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_stop((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)a, 0, m, 32), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_validate(), 0);
	LR_TEST_ASSERT_EQ(lr_eth_link_get((uint16_t)a, &link), 0);
	LR_TEST_ASSERT_EQ(link.link_status, 0);
	/* Reconfigure to one queue, start again. */
	LR_TEST_ASSERT_EQ(lr_eth_dev_configure((uint16_t)a, 1, 1, NULL), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_start((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_validate(), 0);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)a, 1, m, 32), 0);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)a, 0, m, 8), 8);
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)a, 0, m, 8), 8);

	/* MAC, promiscuous, MTU. */
	LR_TEST_ASSERT_EQ(lr_eth_macaddr_get((uint16_t)a, &mac), 0);
	LR_TEST_ASSERT(lr_ether_addr_is_valid_assigned(&mac), "default mac");
	LR_TEST_ASSERT_EQ(lr_eth_dev_default_mac_addr_set((uint16_t)a, &set),
			  0);
	LR_TEST_ASSERT_EQ(lr_eth_macaddr_get((uint16_t)a, &mac), 0);
	LR_TEST_ASSERT(lr_ether_addr_equal(&mac, &set), "mac set");
	LR_TEST_ASSERT_EQ(lr_eth_dev_default_mac_addr_set((uint16_t)a, &bad),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eth_promiscuous_get((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_promiscuous_enable((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_promiscuous_get((uint16_t)a), 1);
	LR_TEST_ASSERT_EQ(lr_eth_promiscuous_disable((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_promiscuous_get((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_set_mtu((uint16_t)a, 9000), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_get_mtu((uint16_t)a, &mtu), 0);
	LR_TEST_ASSERT_EQ(mtu, 9000);
	LR_TEST_ASSERT_EQ(lr_eth_dev_set_mtu((uint16_t)a, 20), -EINVAL);

	/* Close frees the id; the next port takes the lowest free one. */
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)a), 0);
	LR_TEST_ASSERT(!lr_eth_dev_is_valid_port((uint16_t)a), "closed port");
	LR_TEST_ASSERT_EQ(lr_eth_dev_validate(), 0);
	c = lr_eth_dev_create("net_null12");
	LR_TEST_ASSERT_EQ(c, a);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)c), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)b), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), base);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* net_null,no-rx=1: a sink (DPDK's no-rx): nothing arrives, what is sent
 * is counted and freed. */
static int
test_null_no_rx(void)
{
	struct lr_eth_stats st;
	struct lr_mbuf *m[32];
	int p;

	EAL_UP();
	p = lr_test_port_open("net_null22,no-rx=1", 1, 512, pool);
	LR_TEST_ASSERT(p >= 0, "port: %d", p);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, m, 32), 0);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(pool, m, 32), 0);
	for (int i = 0; i < 32; i++)
		LR_TEST_ASSERT(lr_pktmbuf_append(m[i], 64) != NULL, "append");
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)p, 0, m, 32), 32);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, m, 32), 0);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)p, &st), 0);
	LR_TEST_ASSERT_EQ(st.ipackets, 0);
	LR_TEST_ASSERT_EQ(st.opackets, 32);
	LR_TEST_ASSERT_EQ(st.obytes, 32 * 64);
	LR_TEST_ASSERT_EQ(lr_eth_dev_stop((uint16_t)p), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)p), 0);
	return 0;
}

static int
test_null_counts(void)
{
	struct lr_eth_stats st;
	struct lr_mbuf *m[64];
	uint64_t v;
	int p, pc;

	EAL_UP();
	p = lr_test_port_open("net_null20,size=100", 2, 512, pool);
	pc = lr_test_port_open("net_null21,size=60,copy=1", 1, 512, pool);
	LR_TEST_ASSERT(p >= 0 && pc >= 0, "ports: %d %d", p, pc);

	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, m, 32), 32);
	for (int i = 0; i < 32; i++) {
		LR_TEST_ASSERT_EQ(m[i]->data_len, 100);
		LR_TEST_ASSERT_EQ(m[i]->pkt_len, 100);
		LR_TEST_ASSERT_EQ(m[i]->port, p);
		LR_TEST_ASSERT_EQ(m[i]->nb_segs, 1);
	}
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 32);
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)p, 1, m, 32), 32);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 1, m, 7), 7);
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)p, 0, m, 7), 7);

	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)p, &st), 0);
	LR_TEST_ASSERT_EQ(st.ipackets, 39);
	LR_TEST_ASSERT_EQ(st.ibytes, 3900);
	LR_TEST_ASSERT_EQ(st.opackets, 39);
	LR_TEST_ASSERT_EQ(st.obytes, 3900);
	LR_TEST_ASSERT_EQ(st.q_ipackets[0], 32);
	LR_TEST_ASSERT_EQ(st.q_ipackets[1], 7);
	LR_TEST_ASSERT_EQ(st.q_opackets[0], 7);
	LR_TEST_ASSERT_EQ(st.q_obytes[1], 3200);
	LR_TEST_ASSERT_EQ(st.rx_nombuf, 0);
	LR_TEST_ASSERT_EQ(
	    lr_eth_xstats_get_by_name((uint16_t)p, "rx_bursts", &v), 0);
	LR_TEST_ASSERT_EQ(v, 2);
	LR_TEST_ASSERT_EQ(
	    lr_eth_xstats_get_by_name((uint16_t)p, "rx_q1_packets", &v), 0);
	LR_TEST_ASSERT_EQ(v, 7);
	LR_TEST_ASSERT_EQ(
	    lr_eth_xstats_get_by_name((uint16_t)p, "tx_good_bytes", &v), 0);
	LR_TEST_ASSERT_EQ(v, 3900);
	LR_TEST_ASSERT_EQ(
	    lr_eth_xstats_get_by_name((uint16_t)p, "no_such_stat", &v),
	    -ENOENT);

	/* The dump: state, counters, the extended stats that are not zero. */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	LR_TEST_ASSERT(f != NULL, "open_memstream");
	LR_TEST_ASSERT_EQ(lr_eth_dev_dump(f, (uint16_t)p), 0);
	fclose(f);
	LR_TEST_ASSERT(strstr(text, "net_null20 driver net_null") &&
			   strstr(text, "rx 39 pkts 3900 bytes") &&
			   strstr(text, "rx_bursts 2") &&
			   strstr(text, "rx_q1_packets 7") &&
			   !strstr(text, "rx_mbuf_allocation_errors"),
		       "dump:\n%s", text);
	free(text);

	/* copy=1 writes a frame: broadcast destination, port MAC source. */
	struct lr_ether_addr mac;

	lr_eth_macaddr_get((uint16_t)pc, &mac);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)pc, 0, m, 4), 4);
	for (int i = 0; i < 4; i++) {
		struct lr_ether_hdr *eh =
		    lr_pktmbuf_mtod(m[i], struct lr_ether_hdr *);

		LR_TEST_ASSERT_EQ(m[i]->data_len, 60);
		LR_TEST_ASSERT_EQ(eh->dst_addr.addr_bytes[0], 0xff);
		LR_TEST_ASSERT(lr_ether_addr_equal(&eh->src_addr, &mac),
			       "src mac");
		LR_TEST_ASSERT_EQ(lr_pktmbuf_mtod(m[i], uint8_t *)[59], 59);
	}
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)pc, 0, m, 4), 4);

	/* An empty pool: rx gets nothing and counts rx_nombuf. */
	struct lr_mbuf *hold[POOL_SIZE];
	unsigned held = 0;

	while (held < POOL_SIZE && (hold[held] = lr_pktmbuf_alloc(pool)))
		held++;
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, m, 32), 0);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)p, &st), 0);
	LR_TEST_ASSERT_EQ(st.rx_nombuf, 32);
	LR_TEST_ASSERT_EQ(st.ipackets, 39);
	lr_pktmbuf_free_bulk(hold, held);

	/* Reset: zero now, then only what follows. */
	LR_TEST_ASSERT_EQ(lr_eth_stats_reset((uint16_t)p), 0);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)p, &st), 0);
	LR_TEST_ASSERT(st.ipackets == 0 && st.opackets == 0 && st.ibytes == 0 &&
			   st.obytes == 0 && st.rx_nombuf == 0 &&
			   st.q_ipackets[0] == 0 && st.q_obytes[1] == 0,
		       "stats after reset");
	LR_TEST_ASSERT_EQ(
	    lr_eth_xstats_get_by_name((uint16_t)p, "rx_bursts", &v), 0);
	LR_TEST_ASSERT_EQ(v, 0);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, m, 5), 5);
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)p, 0, m, 5), 5);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)p, &st), 0);
	LR_TEST_ASSERT_EQ(st.ipackets, 5);
	LR_TEST_ASSERT_EQ(st.obytes, 500);
	LR_TEST_ASSERT_EQ(
	    lr_eth_xstats_get_by_name((uint16_t)p, "rx_bursts", &v), 0);
	LR_TEST_ASSERT_EQ(v, 1);
	/* Re-setting a queue up keeps the counts. */
	LR_TEST_ASSERT_EQ(lr_eth_dev_stop((uint16_t)p), 0);
	LR_TEST_ASSERT_EQ(
	    lr_eth_rx_queue_setup((uint16_t)p, 0, 64, -1, NULL, pool), 0);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)p, &st), 0);
	LR_TEST_ASSERT_EQ(st.ipackets, 5);

	/* The pool must hold the packet size. */
	struct lr_mempool *small =
	    lr_pktmbuf_pool_create("test_ethdev_small", 64, 0, 0,
				   LR_PKTMBUF_HEADROOM + 64, LR_SOCKET_ID_ANY);
	LR_TEST_ASSERT(small != NULL, "small pool");
	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(
	    lr_eth_rx_queue_setup((uint16_t)p, 0, 64, -1, NULL, small),
	    -EINVAL);
	LR_TEST_ASSERT(strstr(lr_test_log_end(), "size=100 does not fit"),
		       "fit msg");
	lr_mempool_free(small);

	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)p), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)pc), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static int
test_ring_pair(void)
{
	struct lr_mbuf *m[64], *r[64];
	struct lr_eth_stats st;
	uint64_t v;
	int a, b;

	EAL_UP();
	a = lr_test_port_open("net_ring0", 2, 64, pool);
	b = lr_test_port_open("net_ring1", 2, 64, pool);
	LR_TEST_ASSERT(a >= 0 && b >= 0, "ports: %d %d", a, b);

	for (uint16_t q = 0; q < 2; q++) {
		for (int dir = 0; dir < 2; dir++) {
			uint16_t from = (uint16_t)(dir ? b : a);
			uint16_t to = (uint16_t)(dir ? a : b);

			LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(pool, m, 20),
					  0);
			for (int i = 0; i < 20; i++) {
				m[i]->data_len = (uint16_t)(60 + i);
				m[i]->pkt_len = (uint32_t)(60 + i);
			}
			LR_TEST_ASSERT_EQ(lr_eth_tx_burst(from, q, m, 20), 20);
			/* Nothing on the other queue or back on the sender. */
			LR_TEST_ASSERT_EQ(lr_eth_rx_burst(to, q ^ 1, r, 64), 0);
			LR_TEST_ASSERT_EQ(lr_eth_rx_burst(from, q, r, 64), 0);
			LR_TEST_ASSERT_EQ(lr_eth_rx_burst(to, q, r, 64), 20);
			for (int i = 0; i < 20; i++)
				LR_TEST_ASSERT(r[i] == m[i],
					       "packet %d out of order", i);
			lr_pktmbuf_free_bulk(r, 20);
		}
	}
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)a, &st), 0);
	LR_TEST_ASSERT_EQ(st.opackets, 40);
	LR_TEST_ASSERT_EQ(st.ipackets, 40);
	LR_TEST_ASSERT_EQ(st.obytes, 2 * (20 * 60 + 190));
	LR_TEST_ASSERT_EQ(st.q_ipackets[1], 20);

	/* Offloads cross with the mbuf, untouched, for the port that sends
	 * it in the end: the pair advertises them. */
	struct lr_eth_dev_info info;

	LR_TEST_ASSERT_EQ(lr_eth_dev_info_get((uint16_t)a, &info), 0);
	LR_TEST_ASSERT(
	    info.tx_offload_capa == LR_ETH_TX_OFFLOAD_ALL &&
		(info.rx_offload_capa & LR_ETH_RX_OFFLOAD_CKSUM_PARTIAL),
	    "offload capabilities %#llx/%#llx",
	    (unsigned long long)info.tx_offload_capa,
	    (unsigned long long)info.rx_offload_capa);
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(pool, m, 1), 0);
	m[0]->data_len = m[0]->pkt_len = 1000;
	m[0]->ol_flags |= LR_MBUF_F_RX_L4_CKSUM_PARTIAL | LR_MBUF_F_RX_GSO_TCP;
	m[0]->csum_start = 34;
	m[0]->csum_offset = 16;
	m[0]->tso_segsz = 500;
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)a, 0, m, 1), 1);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)b, 0, r, 64), 1);
	LR_TEST_ASSERT(
	    r[0] == m[0] &&
		(r[0]->ol_flags &
		 (LR_MBUF_F_RX_L4_CKSUM_PARTIAL | LR_MBUF_F_RX_GSO_TCP)) ==
		    (LR_MBUF_F_RX_L4_CKSUM_PARTIAL | LR_MBUF_F_RX_GSO_TCP) &&
		r[0]->csum_start == 34 && r[0]->csum_offset == 16 &&
		r[0]->tso_segsz == 500,
	    "offload metadata changed in the ring pair");
	lr_pktmbuf_free(r[0]);

	/* A full ring takes what fits; the rest stays the caller's. */
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(pool, m, 64), 0);
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)a, 0, m, 40), 40);
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)a, 0, m + 40, 24), 24);
	uint16_t took = lr_eth_tx_burst((uint16_t)a, 0, m, 0);
	LR_TEST_ASSERT_EQ(took, 0);
	struct lr_mbuf *extra[8];
	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(pool, extra, 8), 0);
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)a, 0, extra, 8), 0);
	LR_TEST_ASSERT_EQ(
	    lr_eth_xstats_get_by_name((uint16_t)a, "tx_ring_full", &v), 0);
	LR_TEST_ASSERT_EQ(v, 8);
	lr_pktmbuf_free_bulk(extra, 8);
	/* Closing both ports frees the 64 packets still in the ring. */
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 64);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)a), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 64);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)b), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_validate(), 0);
	return 0;
}

static int
test_from_rings(void)
{
	struct lr_ring *rx[2], *tx[2];
	struct lr_mbuf *m[16], *r[16];
	struct lr_eth_stats st;
	void *objs[16];
	int p;

	EAL_UP();
	rx[0] = lr_ring_create("te_rx0", 64, -1, 0);
	rx[1] = lr_ring_create("te_rx1", 64, -1, 0);
	tx[0] = lr_ring_create("te_tx0", 64, -1, 0);
	tx[1] = lr_ring_create("te_tx1", 64, -1, 0);
	LR_TEST_ASSERT(rx[0] && rx[1] && tx[0] && tx[1], "rings");
	LR_TEST_ASSERT_EQ(lr_eth_from_rings("te_port", rx, 2, tx, 1, -1) >= 0,
			  1);
	LR_TEST_ASSERT_EQ(
	    lr_eth_dev_get_port_by_name("te_port", &(uint16_t){0}), 0);
	uint16_t id;
	lr_eth_dev_get_port_by_name("te_port", &id);
	p = id;
	LR_TEST_ASSERT_EQ(lr_eth_from_rings("te_port", rx, 1, tx, 1, -1),
			  -EEXIST);
	LR_TEST_ASSERT_EQ(lr_eth_from_rings("te_bad", rx, 1, NULL, 1, -1),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eth_from_rings("te_bad", rx, 99, tx, 1, -1),
			  -EINVAL);
	/* Only one tx ring: two tx queues are refused. */
	LR_TEST_ASSERT_EQ(lr_eth_dev_configure((uint16_t)p, 2, 2, NULL),
			  -EINVAL);
	LR_TEST_ASSERT_EQ(lr_eth_dev_configure((uint16_t)p, 2, 1, NULL), 0);
	for (uint16_t q = 0; q < 2; q++)
		LR_TEST_ASSERT_EQ(
		    lr_eth_rx_queue_setup((uint16_t)p, q, 64, -1, NULL, pool),
		    0);
	LR_TEST_ASSERT_EQ(lr_eth_tx_queue_setup((uint16_t)p, 0, 64, -1, NULL),
			  0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_start((uint16_t)p), 0);

	LR_TEST_ASSERT_EQ(lr_pktmbuf_alloc_bulk(pool, m, 16), 0);
	LR_TEST_ASSERT_EQ(
	    lr_ring_enqueue_burst(rx[1], (void *const *)m, 16, NULL), 16);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 0, r, 16), 0);
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst((uint16_t)p, 1, r, 16), 16);
	LR_TEST_ASSERT_EQ(lr_eth_tx_burst((uint16_t)p, 0, r, 16), 16);
	LR_TEST_ASSERT_EQ(lr_ring_dequeue_burst(tx[0], objs, 16, NULL), 16);
	for (int i = 0; i < 16; i++)
		LR_TEST_ASSERT(objs[i] == m[i], "packet %d", i);
	lr_pktmbuf_free_bulk((struct lr_mbuf **)objs, 16);
	LR_TEST_ASSERT_EQ(lr_eth_stats_get((uint16_t)p, &st), 0);
	LR_TEST_ASSERT_EQ(st.ipackets, 16);
	LR_TEST_ASSERT_EQ(st.opackets, 16);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close((uint16_t)p), 0);
	/* The rings stay the application's. */
	LR_TEST_ASSERT(lr_ring_lookup("te_rx0") == rx[0], "ring kept");
	for (int i = 0; i < 2; i++) {
		lr_ring_free(rx[i]);
		lr_ring_free(tx[i]);
	}
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

static int
test_eal_vdevs(void)
{
	uint16_t a, b;
	int n;

	EAL_UP();
	unsigned base = lr_eth_dev_count_avail();

	n = lr_eth_dev_probe_eal_vdevs();
	LR_TEST_ASSERT_EQ(n, 2);
	LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), base + 2);
	LR_TEST_ASSERT_EQ(lr_eth_dev_get_port_by_name("net_null7", &a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_get_port_by_name("net_ring8", &b), 0);
	LR_TEST_ASSERT_EQ(port_setup(a, 1, 64), 0);
	struct lr_mbuf *m[4];
	LR_TEST_ASSERT_EQ(lr_eth_rx_burst(a, 0, m, 4), 4);
	LR_TEST_ASSERT_EQ(m[0]->data_len, 60);
	lr_pktmbuf_free_bulk(m, 4);
	/* Probing again fails on the names in use and leaves nothing new. */
	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(lr_eth_dev_probe_eal_vdevs(), -EEXIST);
	LR_TEST_ASSERT(strstr(lr_test_log_end(), "--vdev 'net_null7,size=60'"),
		       "vdev msg");
	LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), base + 2);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close(a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close(b), 0);
	/* Rollback: with net_ring8 taken, probing creates net_null7, fails
	 * on net_ring8 and closes net_null7 again. */
	LR_TEST_ASSERT_EQ(lr_eth_dev_create("net_ring8"), (int)a);
	lr_test_log_begin();
	LR_TEST_ASSERT_EQ(lr_eth_dev_probe_eal_vdevs(), -EEXIST);
	lr_test_log_end();
	/* net_null7 was created then closed again. */
	LR_TEST_ASSERT_EQ(lr_eth_dev_get_port_by_name("net_null7", &b),
			  -ENODEV);
	LR_TEST_ASSERT_EQ(lr_eth_dev_count_avail(), base + 1);
	LR_TEST_ASSERT_EQ(lr_eth_dev_close(a), 0);
	LR_TEST_ASSERT_EQ(lr_eth_dev_validate(), 0);
	LR_TEST_ASSERT_EQ(lr_mempool_in_use_count(pool), 0);
	return 0;
}

/* The drivers' counter helpers: queue counters summed into lr_eth_stats
 * (per-queue fields only below LR_ETH_QUEUE_STAT_CNTRS), xstats values
 * copied at most n and counted in full. (The names tables are read through
 * the null and ring ports above.) */
static int
test_driver_counters(void)
{
	const struct lr_eth_queue_counters rx0 = {10, 1000, 2, 3, 4},
					   tx0 = {5, 500, 1, 0, 0},
					   rx1 = {7, 700, 0, 1, 0},
					   tx1 = {0, 0, 6, 0, 0},
					   big = {100, 10000, 10, 20, 30};
	struct lr_eth_stats s, before;
	const uint64_t v[3] = {11, 22, 33};
	uint64_t values[4] = {0, 0, 0, 99};

	memset(&s, 0, sizeof(s));
	lr_eth_stats_add_queue(&s, 0, &rx0, &tx0);
	lr_eth_stats_add_queue(&s, 3, &rx1, &tx1);
	LR_TEST_ASSERT_EQ(s.ipackets, 17);
	LR_TEST_ASSERT_EQ(s.ibytes, 1700);
	LR_TEST_ASSERT_EQ(s.ierrors, 2);
	LR_TEST_ASSERT_EQ(s.rx_nombuf, 4);
	LR_TEST_ASSERT_EQ(s.imissed, 4);
	LR_TEST_ASSERT_EQ(s.opackets, 5);
	LR_TEST_ASSERT_EQ(s.obytes, 500);
	LR_TEST_ASSERT_EQ(s.oerrors, 7);
	LR_TEST_ASSERT_EQ(s.q_ipackets[0], 10);
	LR_TEST_ASSERT_EQ(s.q_ibytes[0], 1000);
	LR_TEST_ASSERT_EQ(s.q_opackets[0], 5);
	LR_TEST_ASSERT_EQ(s.q_obytes[0], 500);
	LR_TEST_ASSERT_EQ(s.q_errors[0], 3);
	LR_TEST_ASSERT_EQ(s.q_ipackets[3], 7);
	LR_TEST_ASSERT_EQ(s.q_ibytes[3], 700);
	LR_TEST_ASSERT_EQ(s.q_opackets[3], 0);
	LR_TEST_ASSERT_EQ(s.q_errors[3], 6);
	LR_TEST_ASSERT_EQ(s.q_ipackets[1], 0);
	/* A queue past the per-queue fields counts in the totals only. */
	before = s;
	lr_eth_stats_add_queue(&s, LR_ETH_QUEUE_STAT_CNTRS, &big, &big);
	LR_TEST_ASSERT_EQ(s.ipackets, 117);
	LR_TEST_ASSERT_EQ(s.imissed, 34);
	LR_TEST_ASSERT_EQ(s.oerrors, 17);
	LR_TEST_ASSERT(
	    memcmp(s.q_ipackets, before.q_ipackets,
		   sizeof(s) - offsetof(struct lr_eth_stats, q_ipackets)) == 0,
	    "per-queue fields changed");

	LR_TEST_ASSERT_EQ(lr_eth_xstats_values_fill(NULL, 0, v, 3), 3);
	LR_TEST_ASSERT_EQ(lr_eth_xstats_values_fill(values, 2, v, 3), 3);
	LR_TEST_ASSERT(values[0] == 11 && values[1] == 22 && values[2] == 0,
		       "values %llu %llu %llu", (unsigned long long)values[0],
		       (unsigned long long)values[1],
		       (unsigned long long)values[2]);
	LR_TEST_ASSERT_EQ(lr_eth_xstats_values_fill(values, 4, v, 3), 3);
	LR_TEST_ASSERT_EQ(values[2], 33);
	LR_TEST_ASSERT_EQ(values[3], 99);
	return 0;
}

/* IFF_PROMISC as the kernel keeps it for ifname (every holder counted:
 * /sys/class/net/<if>/flags); 1, 0, or -1 if unreadable. */
static int
sys_promisc(const char *ifname)
{
	char path[96];
	unsigned flags = 0;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", ifname);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	n = fscanf(f, "%x", &flags);
	fclose(f);
	return n == 1 ? (flags & IFF_PROMISC) != 0 : -1;
}

/* The interface queries of lr_eth_iface.h on the loopback interface: its
 * flags, its link (up and running; no ethtool speed), no such interface;
 * promiscuous mode held while the descriptor is open, as root. */
static int
test_iface_queries(void)
{
	struct lr_eth_link link;
	unsigned flags = 0;
	int fd, before, held, after;

	LR_TEST_ASSERT_EQ(lr_eth_iface_flags("lo", &flags), 0);
	LR_TEST_ASSERT((flags & IFF_LOOPBACK) && (flags & IFF_UP),
		       "lo flags %#x", flags);
	LR_TEST_ASSERT_EQ(lr_eth_iface_link("lo", &link), 0);
	LR_TEST_ASSERT_EQ(link.link_status,
			  (flags & IFF_UP) && (flags & IFF_RUNNING));
	LR_TEST_ASSERT_EQ(link.link_speed, 0); /* lo answers no ethtool */
	LR_TEST_ASSERT_EQ(link.link_duplex, 1);
	LR_TEST_ASSERT_EQ(lr_eth_iface_flags("lrnosuchif0", &flags), -ENODEV);
	LR_TEST_ASSERT_EQ(lr_eth_iface_link("lrnosuchif0", &link), -ENODEV);
	LR_TEST_ASSERT_EQ(lr_eth_iface_flags("", &flags), -ENODEV);
	LR_TEST_ASSERT_EQ(
	    lr_eth_iface_flags("a_name_longer_than_ifnamsiz", &flags), -ENODEV);
	LR_TEST_ASSERT_EQ(lr_eth_iface_promisc_hold(0), -ENODEV);

	before = sys_promisc("lo");
	fd = lr_eth_iface_promisc_hold((int)if_nametoindex("lo"));
	if (fd == -EPERM) {
		printf("iface_queries: promiscuous mode needs CAP_NET_RAW: "
		       "that part skipped\n");
		return 0;
	}
	if (fd == -ENOPROTOOPT && getenv("LR_EXE_WRAPPER") != NULL &&
	    getenv("LR_EXE_WRAPPER")[0] != '\0') {
		/* qemu-user does not pass PACKET_ADD_MEMBERSHIP through. */
		printf("iface_queries: the emulator (%s) has no packet-socket "
		       "membership: that part skipped\n",
		       getenv("LR_EXE_WRAPPER"));
		return 0;
	}
	LR_TEST_ASSERT(fd >= 0, "promisc_hold(lo): %s", lr_strerror(-fd));
	held = sys_promisc("lo");
	close(fd);
	after = sys_promisc("lo");
	LR_TEST_ASSERT(before >= 0, "cannot read lo's flags in sysfs");
	LR_TEST_ASSERT_EQ(held, 1);
	LR_TEST_ASSERT_EQ(after, before);
	return 0;
}

static int
dup_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	return -EINVAL;
}

/* The registered drivers (net_null and net_regtest among them) sorted,
 * and the text of lr_eth_driver_list(): the same names, then the plugin
 * of LR_PLUGIN_PATH's folder (an empty liblinerate_net_fake.so, not
 * loaded); a short buffer gets a cut text and the whole length. */
static int
check_driver_list(void)
{
	const char *names[64];
	unsigned n = lr_eth_driver_names(names, LR_DIM(names));
	char text[1024], cut[8];
	size_t at = 0;
	int len;

	LR_TEST_ASSERT(n >= 2 && n <= LR_DIM(names), "%u drivers", n);
	LR_TEST_ASSERT_EQ(lr_eth_driver_names(NULL, 0), n);
	for (unsigned i = 0; i + 1 < n; i++)
		LR_TEST_ASSERT(strcmp(names[i], names[i + 1]) < 0,
			       "not sorted: %s, %s", names[i], names[i + 1]);
	len = lr_eth_driver_list(text, sizeof(text));
	LR_TEST_ASSERT(len > 0 && (size_t)len == strlen(text), "len %d", len);
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(names[i]);

		LR_TEST_ASSERT(strncmp(text + at, names[i], l) == 0,
			       "'%s' at %zu of '%s'", names[i], at, text);
		at += l + 1;
	}
	LR_TEST_ASSERT(strstr(text, "; plugins: ") && strstr(text, "net_fake"),
		       "no plugin net_fake in '%s'", text);
	LR_TEST_ASSERT(strstr(text, "net_null ") && strstr(text, "net_regtest"),
		       "'%s'", text);
	LR_TEST_ASSERT_EQ(lr_eth_driver_list(cut, sizeof(cut)), len);
	LR_TEST_ASSERT(strlen(cut) == sizeof(cut) - 1 &&
			   strncmp(cut, text, sizeof(cut) - 1) == 0,
		       "cut '%s'", cut);
	return 0;
}

/* The registry keeps the first driver of a name (a plugin of a built-in
 * driver loaded with -d is left out); a port name whose driver is a
 * plugin that does not load fails with the port, the file and the reason;
 * one with no plugin at all keeps the usual error. */
static int
test_driver_registry(void)
{
	static struct lr_eth_driver dup = {.probe = dup_probe};
	const struct lr_eth_driver *null = lr_eth_driver_find("net_null");
	char dir[] = "/tmp/lr-test-ethdev.XXXXXX", path[128];
	const char *t;
	FILE *f;
	int r;

	LR_TEST_ASSERT(null != NULL, "net_null not registered");
	dup.name = "net_null";
	lr_test_log_begin();
	lr_eth_driver_register(&dup);
	t = lr_test_log_end();
	LR_TEST_ASSERT(strstr(t, "driver net_null registered again"),
		       "log '%s'", t);
	LR_TEST_ASSERT(lr_eth_driver_find("net_null") == null, "replaced");
	/* The same driver twice: once in the list (no cycle). */
	dup.name = "net_regtest";
	lr_eth_driver_register(&dup);
	lr_test_log_begin();
	lr_eth_driver_register(&dup);
	t = lr_test_log_end();
	LR_TEST_ASSERT(t[0] == '\0', "log '%s'", t);
	LR_TEST_ASSERT(lr_eth_driver_find("net_regtest") == &dup, "find");
	LR_TEST_ASSERT(lr_eth_driver_find("net_nosuch") == NULL, "nosuch");

	LR_TEST_ASSERT(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/liblinerate_net_fake.so", dir);
	f = fopen(path, "w");
	LR_TEST_ASSERT(f != NULL, "%s", path);
	fclose(f);
	setenv("LR_PLUGIN_PATH", dir, 1);
	if (check_driver_list() != 0)
		return -1;
	lr_test_log_begin();
	r = lr_eth_dev_create("net_fake7,a=1");
	t = lr_test_log_end();
	unsetenv("LR_PLUGIN_PATH");
	unlink(path);
	rmdir(dir);
	LR_TEST_ASSERT_EQ(r, -ELIBACC);
	LR_TEST_ASSERT(strstr(t, "net_fake7: driver net_fake is a plugin that "
				 "cannot be loaded: ") &&
			   strstr(t, path) &&
			   strstr(t, "the plugin does not fit this program"),
		       "log '%s'", t);
	lr_test_log_begin();
	r = lr_eth_dev_create("net_nosuch3");
	t = lr_test_log_end();
	LR_TEST_ASSERT_EQ(r, -ENOENT);
	LR_TEST_ASSERT(strstr(t,
			      "net_nosuch3: no driver 'net_nosuch' (drivers: "
			      "net_") &&
			   strstr(t, "net_null ") && strstr(t, "net_regtest"),
		       "log '%s'", t);
	return 0;
}

static const struct lr_test_case cases[] = {
    {"devargs_parse", test_devargs_parse},
    {"bad_devargs", test_bad_devargs},
    {"no_such_port", test_no_such_port},
    {"lifecycle", test_lifecycle},
    {"null_counts", test_null_counts},
    {"null_no_rx", test_null_no_rx},
    {"ring_pair", test_ring_pair},
    {"from_rings", test_from_rings},
    {"eal_vdevs", test_eal_vdevs},
    {"driver_counters", test_driver_counters},
    {"iface_queries", test_iface_queries},
    {"driver_registry", test_driver_registry},
};

LR_TEST_MAIN("ethdev", cases)
