/* SPDX-License-Identifier: BSD-3-Clause */
/* net_af_xdp's setup, its errors and what a port leaves behind, over veth
 * pairs between two network namespaces of this run (lr_test_af_xdp.h's
 * topology):
 *  - with a bpffs mounted (private mount namespace) libxdp tries its
 *    dispatcher, and the port reports which program serves it and works
 *    either way (without one: the single program, as in every other case);
 *  - bad devargs, a missing interface, a queue out of range, missing
 *    capabilities and a too small RLIMIT_MEMLOCK give clear errors;
 *  - the interface gets its promiscuous state back, and an XDP program a
 *    killed process left is named as it is removed.
 * Needs root; the parent creates the namespaces, runs the cases in a child
 * and removes the namespaces whatever the child did. */
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
#include "lr_test_port.h"

#ifdef LR_TEST_HAVE_AF_XDP

/* ------------------------------------------------------------------ */
/* Cases. */

/* The child of test_dispatcher(): its exit status. */
static int
dispatcher_child(void)
{
	struct lr_mbuf *m[64];
	char args[96];
	const char *t;
	int port, fd, ok;

	if (unshare(CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL) != 0) {
		printf("skip: cannot mount a bpffs in a private mount "
		       "namespace: %s\n",
		       strerror(errno));
		return LR_TEST_SKIP;
	}
	snprintf(args, sizeof(args), "net_af_xdp14,iface=%s", if_f0);
	lr_log_set_level(LR_LOGTYPE_PMD, LR_LOG_INFO);
	lr_test_log_begin();
	port = port_up(args, 1);
	t = lr_test_log_end();
	/* The dispatcher needs more than a bpffs (kernel support for
	 * freplace programs); either way the port must say which it got and
	 * work. */
	if (port < 0 || (strstr(t, "program: libxdp redirect (libxdp "
				   "dispatcher)") == NULL &&
			 strstr(t, "program: libxdp redirect (single "
				   "program") == NULL))
		return 1;
	printf("dispatcher: with a bpffs: %s\n",
	       strstr(t, "(libxdp dispatcher)") ? "libxdp dispatcher"
						: "single program");
	fflush(stdout);
	fd = gen_socket(if_g0, 0);
	ok = fd >= 0 && send_frames(fd, 0, 40, 1) == 0 &&
	     poll_rx((uint16_t)port, 0, m, 40) == 40;
	lr_pktmbuf_free_bulk(m, 40);
	return ok && port_down((uint16_t)port, 1) == 0 ? 0 : 1;
}

/* In a private mount namespace with a bpffs, libxdp loads its dispatcher;
 * frames still arrive. */
static int
test_dispatcher(void)
{
	return lr_test_in_child(dispatcher_child);
}

/* An xdp_prog that is not an ELF object: the start fails with -EINVAL
 * and libbpf's own words, not "Unknown error 4001". */
static int
bad_prog_file(void)
{
	char a[256], path[] = "/tmp/lr_test_xdp_prog_XXXXXX";
	const char *t;
	int fd = mkstemp(path), r;

	LR_TEST_ASSERT(fd >= 0 && write(fd, "\177ELF garbage", 12) == 12,
		       "temporary file %s", path);
	close(fd);
	snprintf(a, sizeof(a), "net_af_xdp20,iface=%s,xdp_prog=%s", if_f0,
		 path);
	lr_test_log_begin();
	r = port_up(a, 1);
	t = lr_test_log_end();
	unlink(path);
	LR_TEST_ASSERT(r == -EINVAL, "'%s': got %d, want -EINVAL", a, r);
	LR_TEST_ASSERT(strstr(t, "cannot open: BPF object format invalid") &&
			   !strstr(t, "Unknown error"),
		       "'%s': log:\n%s", a, t);
	return 0;
}

static int
test_bad_devargs(void)
{
	/* Devargs and message, each with the interface ifc in it. */
	static const struct {
		const char *fmt;
		const char *ifc;
		int err;
		const char *msg;
	} bad[] = {
	    {"net_af_xdp20", if_f0, -EINVAL, "net_af_xdp20: iface: missing"},
	    {"net_af_xdp20,iface=lrt_none_x", if_f0, -ENODEV,
	     "no interface 'lrt_none_x' in this network namespace"},
	    {"net_af_xdp20,iface=lo,colour=red", if_f0, -EINVAL, "colour"},
	    {"net_af_xdp20,iface=%s,start_queue=1", if_f0, -EINVAL,
	     "queues 1..1 out of range: '%s' has 1 receive queue(s)"},
	    {"net_af_xdp20,iface=%s,queue_count=3", if_n0, -EINVAL,
	     "queues 0..2 out of range: '%s' has 2 receive queue(s)"},
	    {"net_af_xdp20,iface=%s,mode=fast", if_f0, -EINVAL,
	     "mode: bad value 'fast'"},
	    {"net_af_xdp20,iface=%s,xdp_prog=/nonexistent/x.o", if_f0, -EINVAL,
	     "xdp_prog: cannot read '/nonexistent/x.o'"},
	    {"net_af_xdp20,iface=%s,shared_umem=2", if_f0, -EINVAL,
	     "shared_umem: bad value '2'"},
	    {"net_af_xdp20,iface=%s,partial_csum=yes", if_f0, -EINVAL,
	     "partial_csum: bad value 'yes'"},
	    {"net_af_xdp20,iface=%s,queue_count=17", if_f0, -EINVAL,
	     "queue_count"},
	};
	char a[256], msg[256];

	for (unsigned i = 0; i < LR_DIM(bad); i++) {
		snprintf(a, sizeof(a), bad[i].fmt, bad[i].ifc);
		snprintf(msg, sizeof(msg), bad[i].msg, bad[i].ifc);
		if (lr_test_port_refused(a, bad[i].err, msg) != 0)
			return -1;
	}
	return bad_prog_file();
}

/* Drop capabilities caps (bit mask of the low 32) from the effective and
 * permitted sets of this process. */
static int
drop_caps(uint32_t caps_lo, uint32_t caps_hi)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return -1;
	d[0].effective &= ~caps_lo;
	d[0].permitted &= ~caps_lo;
	d[1].effective &= ~caps_hi;
	d[1].permitted &= ~caps_hi;
	return (int)syscall(SYS_capset, &h, d);
}

/* A port refused in a child process without some capabilities (caps,
 * the low 32) and, unless 0, with a locked-memory limit that cannot be
 * raised. */
struct refused_child {
	uint32_t caps;
	rlim_t memlock;
	const char *port; /* its name: iface is if_f0 */
	int err;
	const char *msg;
};

/* The refused_child() case the next child runs. */
static const struct refused_child *child_case;

/* The child of a refused_child case: its exit status. */
static int
refused_child(void)
{
	const struct refused_child *c = child_case;
	struct rlimit rl = {c->memlock, c->memlock};
	char a[96];

	if (drop_caps(c->caps, 0) != 0 ||
	    (c->memlock != 0 && setrlimit(RLIMIT_MEMLOCK, &rl) != 0))
		return 2;
	snprintf(a, sizeof(a), "%s,iface=%s", c->port, if_f0);
	return lr_test_port_refused(a, c->err, c->msg) == 0 ? 0 : 1;
}

/* Without CAP_NET_RAW: the port is refused, saying why. */
static int
test_no_permission(void)
{
	static const struct refused_child c = {
	    1u << CAP_NET_RAW, 0, "net_af_xdp21", -EPERM,
	    "net_af_xdp21: no permission for AF_XDP: missing CAP_NET_RAW"};

	child_case = &c;
	return lr_test_in_child(refused_child);
}

/* With a locked-memory limit of 64 KiB that cannot be raised: the port is
 * refused, saying what to do. */
static int
test_memlock(void)
{
	static const struct refused_child c = {
	    (1u << CAP_IPC_LOCK) | (1u << CAP_SYS_RESOURCE), 64 << 10,
	    "net_af_xdp22", -ENOBUFS,
	    "RLIMIT_MEMLOCK is 64 KiB and cannot be raised: raise it (ulimit "
	    "-l"};

	child_case = &c;
	return lr_test_in_child(refused_child);
}

/* The kernel's promiscuity count of ifname (`ip -d link`: every user,
 * IFF_PROMISC set by hand or a packet socket's membership) and whether
 * IFF_PROMISC is set; count or -1. */
static int
promiscuity(const char *ifname, int *flag)
{
	char cmd[128], line[512];
	int count = -1;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ip -d link show dev %s 2>&1", ifname);
	f = popen(cmd, "r");
	if (f == NULL)
		return -1;
	*flag = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *p = strstr(line, "promiscuity ");

		if (strstr(line, "<") && strstr(line, "PROMISC"))
			*flag = 1;
		if (p != NULL)
			count = atoi(p + strlen("promiscuity "));
	}
	pclose(f);
	return count;
}

/* Promiscuous mode on a port is given back when the port turns it off or
 * closes: the interface's own state (off, or on as the administrator set
 * it) is what it was before. */
static int
test_promisc_restore(void)
{
	char args[96], cmd[96];
	int port, flag, c0, c1, c2, c3, f3, c4, f4;

	snprintf(args, sizeof(args), "net_af_xdp10,iface=%s", if_f0);
	c0 = promiscuity(if_f0, &flag);
	LR_TEST_ASSERT(c0 == 0 && !flag, "%s: promiscuity %d before", if_f0,
		       c0);
	port = port_up(args, 1);
	LR_TEST_ASSERT(port >= 0, "port: %s", lr_strerror(-port));
	LR_TEST_ASSERT_EQ(lr_eth_promiscuous_enable((uint16_t)port), 0);
	c1 = promiscuity(if_f0, &flag);
	LR_TEST_ASSERT_EQ(lr_eth_promiscuous_disable((uint16_t)port), 0);
	c2 = promiscuity(if_f0, &flag);
	LR_TEST_ASSERT_EQ(lr_eth_promiscuous_enable((uint16_t)port), 0);
	if (port_down((uint16_t)port, 1) != 0)
		return -1;
	c3 = promiscuity(if_f0, &f3);
	LR_TEST_ASSERT_EQ(c1, 1);
	LR_TEST_ASSERT_EQ(c2, 0);
	LR_TEST_ASSERT(c3 == 0 && !f3,
		       "after close: promiscuity %d, IFF_PROMISC %d", c3, f3);

	/* Set by hand before: still set after the port. */
	snprintf(cmd, sizeof(cmd), "ip link set dev %s promisc on", if_f0);
	LR_TEST_ASSERT(system(cmd) == 0, "%s", cmd);
	port = port_up(args, 1);
	LR_TEST_ASSERT(port >= 0, "port: %s", lr_strerror(-port));
	LR_TEST_ASSERT_EQ(lr_eth_promiscuous_enable((uint16_t)port), 0);
	if (port_down((uint16_t)port, 1) != 0)
		return -1;
	c4 = promiscuity(if_f0, &f4);
	snprintf(cmd, sizeof(cmd), "ip link set dev %s promisc off", if_f0);
	LR_TEST_ASSERT(system(cmd) == 0, "%s", cmd);
	LR_TEST_ASSERT(c4 == 1 && f4,
		       "set by hand: promiscuity %d, IFF_PROMISC %d after "
		       "close",
		       c4, f4);
	return 0;
}

/* The XDP program attached to ifname in this namespace, by name, into
 * name (len bytes; "" when none); 0, or -1 if `ip` failed. */
static int
xdp_prog_on(const char *ifname, char *name, size_t len)
{
	char cmd[128], line[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ip link show dev %s 2>&1", ifname);
	name[0] = '\0';
	f = popen(cmd, "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *p = strstr(line, " name ");

		if (strstr(line, "prog/xdp") && p != NULL)
			sscanf(p + 6, "%63s", name);
	}
	return pclose(f) == 0 ? 0 : -1;
}

/* A process killed with SIGKILL leaves libxdp's program attached; the
 * next port on that interface says so and how to remove it, and the
 * command it gives does remove it (after which a port's clean close
 * leaves nothing). */
/* Two ports of this process on queues 0 and 1 of one interface: the
 * second finds the program the first attached and says nothing of a
 * stale one; both close, and no program is left. */
static int
two_ports_one_iface(void)
{
	char a0[96], a1[96], prog[64];
	const char *t;
	int p0, p1;

	snprintf(a0, sizeof(a0), "net_af_xdp13,iface=%s,start_queue=0", if_n0);
	snprintf(a1, sizeof(a1), "net_af_xdp14,iface=%s,start_queue=1", if_n0);
	p0 = port_up(a0, 1);
	LR_TEST_ASSERT(p0 >= 0, "port on %s queue 0: %s", if_n0,
		       lr_strerror(-p0));
	lr_test_log_begin();
	p1 = port_up(a1, 1);
	t = lr_test_log_end();
	LR_TEST_ASSERT(p1 >= 0, "port on %s queue 1: %s", if_n0,
		       lr_strerror(-p1));
	LR_TEST_ASSERT(strstr(t, "already attached") == NULL,
		       "warning for this process's own program:\n%s", t);
	if (port_down((uint16_t)p1, 1) != 0 || port_down((uint16_t)p0, 1) != 0)
		return -1;
	LR_TEST_ASSERT(
	    xdp_prog_on(if_n0, prog, sizeof(prog)) == 0 && prog[0] == '\0',
	    "%s: program '%s' left after both ports closed", if_n0, prog);
	return 0;
}

/* Port args up (one queue pair) and down again; what it logged meanwhile
 * (valid until the next capture), or NULL after a message. */
static const char *
port_cycle_log(const char *args)
{
	const char *t;
	int port;

	lr_test_log_begin();
	port = port_up(args, 1);
	t = lr_test_log_end();
	if (port < 0) {
		fprintf(stderr, "port: %s\n", lr_strerror(-port));
		return NULL;
	}
	return port_down((uint16_t)port, 1) == 0 ? t : NULL;
}

static int
test_stale_prog(void)
{
	char exe[600], pfx[64], a0[96], a1[96], out[16384], cmd[256];
	char prog[64], args[96];
	char *argv[] = {exe,
			"-l",
			"0",
			"--no-huge",
			"-m",
			"128",
			pfx,
			"--vdev",
			a0,
			"--vdev",
			a1,
			"--",
			"-p",
			"3",
			"-T",
			"0",
			"--no-mac-updating",
			NULL};
	struct lr_test_child c;
	const char *t, *q, *e;

	snprintf(exe, sizeof(exe), "%s/../apps/l2fwd/lr-l2fwd", self_dir);
	if (access(exe, X_OK) != 0) {
		printf("skip: %s not built\n", exe);
		return LR_TEST_SKIP;
	}
	lr_test_prefix_arg(pfx, sizeof(pfx), "test_afxdp_stale");
	snprintf(a0, sizeof(a0), "net_af_xdp0,iface=%s", if_f0);
	snprintf(a1, sizeof(a1), "net_af_xdp1,iface=%s", if_f1);
	LR_TEST_ASSERT(lr_test_spawn(&c, exe, argv, out, sizeof(out)) == 0,
		       "spawn %s", exe);
	if (lr_test_child_wait_for(&c, "Forwarding on", 120) != 0) {
		kill(c.pid, SIGKILL);
		lr_test_child_finish(&c, 30);
		fprintf(stderr, "lr-l2fwd did not start:\n%s\n", out);
		return -1;
	}
	kill(c.pid, SIGKILL);
	lr_test_child_finish(&c, 30);
	/* What the killed process leaves of its own (runtime folder, and
	 * the telemetry link at DPDK's path). */
	snprintf(cmd, sizeof(cmd), "rm -rf /var/run/linerate/%s /var/run/dpdk/%s",
		 strchr(pfx, '=') + 1, strchr(pfx, '=') + 1);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot run '%s'\n", cmd);
	LR_TEST_ASSERT(xdp_prog_on(if_f1, prog, sizeof(prog)) == 0 &&
			   strcmp(prog, "xsk_def_prog") == 0,
		       "%s: program '%s' after SIGKILL, want xsk_def_prog",
		       if_f1, prog);

	snprintf(args, sizeof(args), "net_af_xdp12,iface=%s", if_f1);
	t = port_cycle_log(args);
	if (t == NULL)
		return -1;
	LR_TEST_ASSERT(strstr(t, "net_af_xdp12: ") &&
			   strstr(t, "libxdp's AF_XDP program (xsk_def_prog, "
				     "id ") &&
			   strstr(t, "is already attached"),
		       "no word of the program left attached:\n%s", t);
	/* Run the ip command the message gives. */
	q = strstr(t, "'ip link set dev ");
	e = q ? strchr(q + 1, '\'') : NULL;
	LR_TEST_ASSERT(q && e && e - q < 100, "no ip command in:\n%s", t);
	snprintf(cmd, sizeof(cmd), "%.*s", (int)(e - q - 1), q + 1);
	LR_TEST_ASSERT(system(cmd) == 0, "'%s' failed", cmd);
	LR_TEST_ASSERT(xdp_prog_on(if_f1, prog, sizeof(prog)) == 0 &&
			   prog[0] == '\0',
		       "%s: '%s' left program '%s'", if_f1, cmd, prog);
	snprintf(cmd, sizeof(cmd), "ip link set dev %s xdp off", if_f0);
	LR_TEST_ASSERT(system(cmd) == 0, "'%s' failed", cmd);

	/* Now a port's own program, removed at its close: no warning. */
	t = port_cycle_log(args);
	if (t == NULL)
		return -1;
	LR_TEST_ASSERT(strstr(t, "already attached") == NULL,
		       "warning for the port's own program:\n%s", t);
	LR_TEST_ASSERT(
	    xdp_prog_on(if_f1, prog, sizeof(prog)) == 0 && prog[0] == '\0',
	    "%s: program '%s' left after a clean close", if_f1, prog);
	return two_ports_one_iface();
}

static const struct lr_test_case cases[] = {
    {"promisc_restore", test_promisc_restore},
    {"stale_prog", test_stale_prog},
    {"dispatcher", test_dispatcher},
    {"bad_devargs", test_bad_devargs},
    {"no_permission", test_no_permission},
    {"memlock", test_memlock},
};

#endif /* LR_TEST_HAVE_AF_XDP */

LR_TEST_AF_XDP_MAIN("pmd_af_xdp_setup", "lry", cases)
