/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * af_xdp_probe.c - net_af_xdp's devargs, probe and driver (af_xdp_private.h
 * says which file does what): the checks a port must pass before it is
 * made (interface and its queues, capabilities, locked memory), the port
 * made and registered, and the driver API of lr_eth_af_xdp.h.
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include "af_xdp_private.h"
#include "lr_eth_af_xdp.h"
#include "lr_ethdev_driver.h"
#include "lr_mbuf.h"

#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static const char *const afxdp_keys[] = {
    "iface",	"start_queue", "queue_count",  "mode", "busy_budget",
    "xdp_prog", "shared_umem", "partial_csum", NULL,
};

/* By enum xdp_mode (af_xdp_private.h). */
const char *const lr_af_xdp_mode_names_[3] = {"auto", "skb", "drv"};

/* A libxdp or libbpf message into our log: warnings at INFO, the rest at
 * DEBUG. */
static int
lib_log(int warn, const char *fmt, va_list ap)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (warn)
		LR_LOG(INFO, PMD, "%s", buf);
	else
		LR_LOG(DEBUG, PMD, "%s", buf);
	return 0;
}

static int
libxdp_log(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return lib_log(level == LIBXDP_WARN, fmt, ap);
}

static int
libbpf_log(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return lib_log(level == LIBBPF_WARN, fmt, ap);
}

/* ------------------------------------------------------------------ */
/* Checks at probe. */

static int
cap_has(const struct __user_cap_data_struct *d, int cap)
{
	return (d[cap >> 5].effective >> (cap & 31)) & 1;
}

static int
caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {
	    .version = _LINUX_CAPABILITY_VERSION_3,
	    .pid = 0,
	};

	memset(d, 0, 2 * sizeof(*d));
	return (int)syscall(SYS_capget, &h, d);
}

static int
check_permission(const char *name, struct __user_cap_data_struct caps[2])
{
	int raw = cap_has(caps, CAP_NET_RAW);
	int admin = cap_has(caps, CAP_NET_ADMIN);
	int bpf = cap_has(caps, CAP_BPF) || cap_has(caps, CAP_SYS_ADMIN);

	if (raw && admin && bpf)
		return 0;
	LR_LOG(ERR, PMD,
	       "%s: no permission for AF_XDP: missing%s%s%s; run as root or "
	       "grant CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF\n",
	       name, raw ? "" : " CAP_NET_RAW", admin ? "" : " CAP_NET_ADMIN",
	       bpf ? "" : " CAP_BPF");
	return -EPERM;
}

/* RLIMIT_MEMLOCK covers the UMEMs unless we hold CAP_IPC_LOCK; raise it
 * when allowed, else say what to raise. */
static int
check_memlock(const char *name, size_t need,
	      const struct __user_cap_data_struct caps[2])
{
	struct rlimit rl;

	if (cap_has(caps, CAP_IPC_LOCK))
		return 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0 ||
	    rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return 0;
	{
		struct rlimit want = rl;

		want.rlim_cur = need;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
			want.rlim_max = need;
		if (setrlimit(RLIMIT_MEMLOCK, &want) == 0) {
			LR_LOG(INFO, PMD,
			       "%s: raised RLIMIT_MEMLOCK from %llu to %zu KiB "
			       "for the UMEM\n",
			       name, (unsigned long long)rl.rlim_cur >> 10,
			       need >> 10);
			return 0;
		}
	}
	LR_LOG(ERR, PMD,
	       "%s: the UMEM needs %zu KiB of locked memory but "
	       "RLIMIT_MEMLOCK is %llu KiB and cannot be raised: raise it "
	       "(ulimit -l %zu, LimitMEMLOCK= for a service) or grant "
	       "CAP_IPC_LOCK\n",
	       name, need >> 10, (unsigned long long)rl.rlim_cur >> 10,
	       need >> 10);
	return -ENOBUFS;
}

/* Receive queues of the interface: ethtool channels, else sysfs. */
static int
iface_queues(const char *ifname)
{
	struct ethtool_channels ch = {.cmd = ETHTOOL_GCHANNELS};
	struct ifreq ifr;
	char path[128];
	int fd, n = -1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
		ifr.ifr_data = (void *)&ch;
		if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
			n = (int)(ch.combined_count + ch.rx_count);
		close(fd);
	}
	if (n > 0)
		return n;
	n = 0;
	for (;; n++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%d",
			 ifname, n);
		if (access(path, F_OK) != 0)
			break;
	}
	return n > 0 ? n : 1;
}

static int
iface_mac(const char *ifname, struct lr_ether_addr *mac)
{
	struct ifreq ifr;
	int fd, rc = -1;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) == 0) {
		memcpy(mac->addr_bytes, ifr.ifr_hwaddr.sa_data, 6);
		rc = 0;
	}
	close(fd);
	return rc;
}

/* ------------------------------------------------------------------ */
/* Probe. */

static struct lr_eth_driver afxdp_driver;

/* What the devargs ask of a port, read and checked by afxdp_parse_args. */
struct axp_cfg {
	const char *iface, *prog;
	uint64_t sq, qc, budget, shared;
	int mode;
	int partial; /* partial_csum: 0, 1, or -1 (auto) */
};

/* Read the mode devarg into c->mode; 0 or -EINVAL after logging. */
static int
mode_arg(const char *name, const struct lr_devargs *args, struct axp_cfg *c)
{
	const char *mode = lr_devargs_get(args, "mode");
	int m = MODE_AUTO;

	if (mode != NULL) {
		for (m = 0; m < (int)LR_DIM(lr_af_xdp_mode_names_); m++)
			if (strcmp(mode, lr_af_xdp_mode_names_[m]) == 0)
				break;
		if (m == (int)LR_DIM(lr_af_xdp_mode_names_)) {
			LR_LOG(ERR, PMD,
			       "%s: mode: bad value '%s' (expected auto, skb "
			       "or drv)\n",
			       name, mode);
			return -EINVAL;
		}
	}
	c->mode = m;
	return 0;
}

/* Read the partial_csum devarg (auto, 0 or 1) into c->partial; 0 or
 * -EINVAL after logging. */
static int
partial_arg(const char *name, const struct lr_devargs *args, struct axp_cfg *c)
{
	const char *v = lr_devargs_get(args, "partial_csum");

	c->partial = -1;
	if (v == NULL || strcmp(v, "auto") == 0)
		return 0;
	if (strcmp(v, "0") == 0 || strcmp(v, "1") == 0) {
		c->partial = v[0] - '0';
		return 0;
	}
	LR_LOG(ERR, PMD,
	       "%s: partial_csum: bad value '%s' (expected auto, 0 or 1)\n",
	       name, v);
	return -EINVAL;
}

/* Whether interface ifname is a virtual one whose frames may come from the
 * local stack with partial checksums: veth, tun/tap, or no device behind
 * it (no bus); a NIC's frames come from the wire, complete. */
static int
iface_virtual(const char *ifname)
{
	struct ethtool_drvinfo di = {.cmd = ETHTOOL_GDRVINFO};
	struct ifreq ifr;
	int fd, ret = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&di;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
		ret = strcmp(di.driver, "veth") == 0 ||
		      strcmp(di.driver, "tun") == 0 || di.bus_info[0] == '\0';
	close(fd);
	return ret;
}

/* Read and check the devargs into c; 0 or -errno after logging. */
static int
afxdp_parse_args(const char *name, const struct lr_devargs *args,
		 struct axp_cfg *c)
{
	int ret;

	c->iface = lr_devargs_get(args, "iface");
	if (c->iface == NULL || c->iface[0] == '\0') {
		LR_LOG(ERR, PMD,
		       "%s: iface: missing (iface=<interface name>)\n", name);
		return -EINVAL;
	}
	if (strlen(c->iface) >= IF_NAMESIZE) {
		LR_LOG(ERR, PMD, "%s: iface: '%s' longer than %d characters\n",
		       name, c->iface, IF_NAMESIZE - 1);
		return -EINVAL;
	}
	ret = lr_devargs_get_uint(args, "start_queue", 0, 0, 65535, &c->sq);
	if (ret == 0)
		ret = lr_devargs_get_uint(args, "queue_count", 1, 1,
					  LR_MAX_QUEUES_PER_PORT, &c->qc);
	if (ret == 0)
		ret = lr_devargs_get_uint(args, "busy_budget", 0, 0, 1024,
					  &c->budget);
	if (ret == 0)
		ret = lr_devargs_get_uint(args, "shared_umem", 0, 0, 1,
					  &c->shared);
	if (ret < 0)
		return ret;
	ret = mode_arg(name, args, c);
	if (ret == 0)
		ret = partial_arg(name, args, c);
	if (ret < 0)
		return ret;
	c->prog = lr_devargs_get(args, "xdp_prog");
	if (c->prog != NULL &&
	    (c->prog[0] == '\0' || strlen(c->prog) >= PATH_MAX ||
	     access(c->prog, R_OK) != 0)) {
		LR_LOG(ERR, PMD, "%s: xdp_prog: cannot read '%s': %s\n", name,
		       c->prog, c->prog[0] ? strerror(errno) : "empty path");
		return -EINVAL;
	}
	return 0;
}

/* Check the interface exists and has the asked queues; its receive
 * queue count in *nq, 0 or -errno after logging. */
static int
afxdp_check_iface(const char *name, const struct axp_cfg *c, unsigned *nq)
{
	if (if_nametoindex(c->iface) == 0) {
		LR_LOG(
		    ERR, PMD,
		    "%s: iface: no interface '%s' in this network namespace\n",
		    name, c->iface);
		return -ENODEV;
	}
	*nq = (unsigned)iface_queues(c->iface);
	if (c->sq + c->qc > *nq) {
		LR_LOG(
		    ERR, PMD,
		    "%s: queues %llu..%llu out of range: '%s' has %u receive "
		    "queue(s) (0..%u); lower start_queue/queue_count or add "
		    "channels (ethtool -L, veth numrxqueues)\n",
		    name, (unsigned long long)c->sq,
		    (unsigned long long)(c->sq + c->qc - 1), c->iface, *nq,
		    *nq - 1);
		return -EINVAL;
	}
	return 0;
}

/* Check the capabilities and the locked-memory limit the queues need;
 * 0 or -errno after logging. */
static int
afxdp_check_privileges(const char *name, const struct axp_cfg *c)
{
	struct __user_cap_data_struct caps[2];
	int ret;

	if (caps_get(caps) != 0) {
		LR_LOG(ERR, PMD, "%s: cannot read capabilities: %s\n", name,
		       strerror(errno));
		return -EPERM;
	}
	ret = check_permission(name, caps);
	if (ret)
		return ret;
	return check_memlock(name, (size_t)c->qc * lr_af_xdp_umem_max_bytes_(),
			     caps);
}

/* A zeroed, cache-line aligned port configured from c; NULL when out of
 * memory. */
static struct axp *
afxdp_port_new(const struct axp_cfg *c)
{
	struct axp *p;

	p = aligned_alloc(
	    LR_CACHE_LINE_SIZE,
	    LR_ALIGN_CEIL(sizeof(*p), (size_t)LR_CACHE_LINE_SIZE));
	if (p == NULL)
		return NULL;
	memset(p, 0, sizeof(*p));
	p->promisc_fd = -1;
	snprintf(p->iface, sizeof(p->iface), "%s", c->iface);
	p->ifindex = (int)if_nametoindex(c->iface);
	p->start_queue = (unsigned)c->sq;
	p->queue_count = (unsigned)c->qc;
	p->busy_budget = (unsigned)c->budget;
	p->shared = (unsigned)c->shared;
	p->partial = c->partial >= 0 ? (unsigned)c->partial
				     : (unsigned)iface_virtual(c->iface);
	p->mode = (enum xdp_mode)c->mode;
	p->xsks_map_fd = -1;
	if (c->prog != NULL)
		snprintf(p->xdp_prog, sizeof(p->xdp_prog), "%s", c->prog);
	return p;
}

/* Attach p to dev: MAC (the interface's, else a random one), library log
 * hooks, ops, burst functions and link; log the port (nq: the interface's
 * receive queues). */
static void
afxdp_port_register(struct lr_eth_dev *dev, struct axp *p, unsigned nq)
{
	const char *prog = p->xdp_prog[0] ? p->xdp_prog : NULL;

	if (iface_mac(p->iface, &dev->data->mac_addr) != 0)
		lr_eth_random_mac(&dev->data->mac_addr, dev->data->port_id,
				  0xaf);
	libxdp_set_print(libxdp_log);
	libbpf_set_print(libbpf_log);
	dev->data->dev_private = p;
	dev->dev_ops = &lr_af_xdp_ops_;
	dev->rx_pkt_burst = lr_af_xdp_rx_;
	dev->tx_pkt_burst = lr_af_xdp_tx_;
	dev->data->link.link_speed = 10000;
	dev->data->link.link_duplex = 1;
	LR_LOG(INFO, PMD,
	       "%s: iface %s (index %d) queues %u..%u of %u, mode %s%s%s%s%s\n",
	       dev->data->name, p->iface, p->ifindex, p->start_queue,
	       p->start_queue + p->queue_count - 1, nq,
	       lr_af_xdp_mode_names_[p->mode], prog ? ", xdp_prog " : "",
	       prog ? prog : "", p->shared ? ", shared UMEM per mempool" : "",
	       p->partial ? ", partial checksums looked for" : "");
}

/* Create a port from devargs: parse them, check the interface and the
 * privileges, then allocate and register; 0 or -errno after logging. */
static int
afxdp_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	const char *name = dev->data->name;
	struct axp_cfg c;
	struct axp *p;
	unsigned nq;
	int ret;

	ret = afxdp_parse_args(name, args, &c);
	if (ret < 0)
		return ret;
	ret = afxdp_check_iface(name, &c, &nq);
	if (ret < 0)
		return ret;
	ret = afxdp_check_privileges(name, &c);
	if (ret)
		return ret;
	p = afxdp_port_new(&c);
	if (p == NULL)
		return -ENOMEM;
	afxdp_port_register(dev, p, nq);
	return 0;
}

static struct lr_eth_driver afxdp_driver = {
    .keys = afxdp_keys,
    .usage = "iface=<if> [start_queue=<q>] [queue_count=<n>] "
	     "[mode=auto|skb|drv] [busy_budget=<n>] [xdp_prog=<file.o>] "
	     "[partial_csum=auto|0|1] "
	     "[shared_umem=0|1]",
    .probe = afxdp_probe,
};

LR_PMD_REGISTER(net_af_xdp, afxdp_driver);

/* ------------------------------------------------------------------ */
/* Driver API. */

static struct axq *
port_queue(uint16_t port_id, uint16_t qid)
{
	struct lr_eth_dev *dev = lr_eth_dev_get(port_id);
	struct axp *p;

	if (dev == NULL || dev->driver != &afxdp_driver) {
		lr_errno = ENODEV;
		return NULL;
	}
	p = dev->data->dev_private;
	if (qid >= LR_MAX_QUEUES_PER_PORT || p->q[qid].mp == NULL) {
		lr_errno = EINVAL;
		return NULL;
	}
	return &p->q[qid];
}

struct lr_mempool *
lr_eth_af_xdp_umem_pool(uint16_t port_id, uint16_t q)
{
	struct axq *aq = port_queue(port_id, q);

	return aq ? aq->mp : NULL;
}

int
lr_eth_af_xdp_kernel_frames(uint16_t port_id, uint16_t q)
{
	struct axq *aq = port_queue(port_id, q);

	unsigned n;

	if (aq == NULL)
		return -lr_errno;
	pthread_mutex_lock(&lr_af_xdp_shumem_lock_);
	n = lr_af_xdp_kernel_frames_(aq);
	pthread_mutex_unlock(&lr_af_xdp_shumem_lock_);
	return (int)n;
}
