/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports: the driver registry (and the plugin drivers loaded on demand),
 * port ids, the lifecycle state machine, the fast-path table and
 * statistics (reset by snapshot).
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lr_eal.h"
#include "lr_ethdev.h"
#include "lr_ethdev_driver.h"
#include "ethdev_private.h"
#include "lr_plugin_config.h"

/* Defaults when a driver does not say otherwise. */
#define DEFAULT_MAX_QUEUES 1
#define DEFAULT_MIN_DESC   1
#define DEFAULT_MAX_DESC   32768
#define DEFAULT_MIN_MTU	   68
#define DEFAULT_MAX_MTU	   9600

uint16_t
lr_eth_rx_burst_dummy(void *rxq, struct lr_mbuf **pkts, uint16_t n)
{
	return 0;
}

uint16_t
lr_eth_tx_burst_dummy(void *txq, struct lr_mbuf **pkts, uint16_t n)
{
	return 0;
}

#define DUMMY_QUEUES(fn)                                                       \
	{                                                                      \
		[0 ... LR_MAX_QUEUES_PER_PORT - 1] = {(fn), NULL }             \
	}

struct lr_eth_fp_ops lr_eth_fp_ops[LR_MAX_ETHPORTS] = {
    [0 ... LR_MAX_ETHPORTS - 1] =
	{
	    .rx = DUMMY_QUEUES(lr_eth_rx_burst_dummy),
	    .tx = DUMMY_QUEUES(lr_eth_tx_burst_dummy),
	},
};

static struct lr_eth_dev devs[LR_MAX_ETHPORTS];
static struct lr_eth_driver *driver_list;
/* Guards driver_list, port allocation and release. */
static pthread_mutex_t ethdev_lock = PTHREAD_MUTEX_INITIALIZER;
/* Held while queues or a port's private state are made or freed, and by
 * the telemetry handlers while they read a port (ethdev_private.h). */
pthread_mutex_t lr_eth_ctl_lock_ = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* Names of the basic counters as extended stats, in struct order. */
static const char *const basic_names[] = {
    "rx_good_packets", "tx_good_packets",	    "rx_good_bytes",
    "tx_good_bytes",   "rx_missed_errors",	    "rx_errors",
    "tx_errors",       "rx_mbuf_allocation_errors",
};
#define NB_BASIC LR_DIM(basic_names)

void
lr_eth_driver_register(struct lr_eth_driver *drv)
{
	const struct lr_eth_driver *d;

	pthread_mutex_lock(&ethdev_lock);
	/* A driver both built in and loaded as a plugin (-d FILE): the
	 * first one stays, so ports never mix two copies. */
	for (d = driver_list; d; d = d->next)
		if (d == drv || strcmp(d->name, drv->name) == 0)
			break;
	if (d == NULL) {
		drv->next = driver_list;
		driver_list = drv;
	}
	pthread_mutex_unlock(&ethdev_lock);
	if (d != NULL && d != drv)
		LR_LOG(WARNING, ETHDEV,
		       "driver %s registered again (a plugin of a driver the "
		       "program has?): the first one stays\n",
		       drv->name);
}

const struct lr_eth_driver *
lr_eth_driver_find(const char *name)
{
	const struct lr_eth_driver *d;

	pthread_mutex_lock(&ethdev_lock);
	for (d = driver_list; d; d = d->next)
		if (strcmp(d->name, name) == 0)
			break;
	pthread_mutex_unlock(&ethdev_lock);
	return d;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

unsigned
lr_eth_driver_names(const char **names, unsigned n)
{
	const struct lr_eth_driver *d;
	unsigned count = 0;

	pthread_mutex_lock(&ethdev_lock);
	for (d = driver_list; d; d = d->next) {
		if (count < n)
			names[count] = d->name;
		count++;
	}
	pthread_mutex_unlock(&ethdev_lock);
	if (names != NULL)
		qsort(names, LR_MIN(count, n), sizeof(*names), cmp_names);
	return count;
}

/* The driver whose name is the longest prefix of a port name. */
static const struct lr_eth_driver *
driver_for_port(const char *port_name)
{
	const struct lr_eth_driver *d, *best = NULL;
	size_t best_len = 0;

	pthread_mutex_lock(&ethdev_lock);
	for (d = driver_list; d; d = d->next) {
		size_t l = strlen(d->name);

		if (l > best_len && strncmp(d->name, port_name, l) == 0) {
			best = d;
			best_len = l;
		}
	}
	pthread_mutex_unlock(&ethdev_lock);
	return best;
}

/* What a plugin driver needs, to say when it cannot be loaded. */
static const struct {
	const char *driver;
	const char *needs;
} plugin_needs[] = {LR_PLUGIN_NEEDS{NULL, NULL}};

/* Loads one plugin at a time; never held with ethdev_lock (the plugin's
 * constructor registers its driver under it). */
static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;

/* Port name net_dpdk0 names the driver net_dpdk: the name without its
 * trailing digits, if only letters, digits and '_' remain; else "". */
static void
plugin_driver_name(const char *port_name, char *drv, size_t len)
{
	size_t n = strlen(port_name);

	while (n > 0 && isdigit((unsigned char)port_name[n - 1]))
		n--;
	drv[0] = '\0';
	if (n == 0 || n >= len)
		return;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)port_name[i]) &&
		    port_name[i] != '_')
			return;
	memcpy(drv, port_name, n);
	drv[n] = '\0';
}

/* Say why the plugin at path, of driver drv, named by port port_name,
 * could not be loaded (dlerror()'s why) and what to do about it: install
 * what the driver needs when a library of its own is missing; rebuild or
 * link differently when the plugin itself does not fit. */
static void
plugin_load_error(const char *port_name, const char *drv, const char *path,
		  const char *why)
{
	const char *needs = "the libraries the reason names";
	size_t pl = strlen(path);

	if (why == NULL)
		why = "?";
	/* A reason about the plugin itself begins with its path. */
	if (strncmp(why, path, pl) == 0 && strncmp(why + pl, ": ", 2) == 0) {
		LR_LOG(ERR, ETHDEV,
		       "%s: driver %s is a plugin that cannot be loaded: %s: "
		       "%s; the plugin does not fit this program: build it "
		       "with the same linerate (a program with linerate's "
		       "static archives exports their lr_ symbols for it: "
		       "-Wl,--export-dynamic)\n",
		       port_name, drv, path, why + pl + 2);
		return;
	}
	for (unsigned i = 0; plugin_needs[i].driver != NULL; i++)
		if (strcmp(plugin_needs[i].driver, drv) == 0)
			needs = plugin_needs[i].needs;
	LR_LOG(ERR, ETHDEV,
	       "%s: driver %s is a plugin that cannot be loaded: %s: %s; "
	       "%s needs %s\n",
	       port_name, drv, path, why, drv, needs);
}

/* No registered driver for port_name: load the plugin of the driver it
 * names (liblinerate_<driver>.so, on the EAL's plugin search path). 1 if
 * loaded, 0 if there is no such plugin, -ELIBACC (logged: the port, the
 * file, dlerror()'s reason and what to do) if it cannot be loaded. */
static int
plugin_load_for(const char *port_name)
{
	char drv[LR_ETH_NAME_MAX_LEN], file[LR_ETH_NAME_MAX_LEN + 32];
	char path[PATH_MAX];
	void *h;

	plugin_driver_name(port_name, drv, sizeof(drv));
	if (drv[0] == '\0')
		return 0;
	snprintf(file, sizeof(file), "liblinerate_%s.so", drv);
	if (lr_eal_plugin_find(file, path, sizeof(path)) < 0)
		return 0;
	pthread_mutex_lock(&plugin_lock);
	/* Never closed: its constructor registered its driver. */
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL)
		plugin_load_error(port_name, drv, path, dlerror());
	pthread_mutex_unlock(&plugin_lock);
	if (h == NULL)
		return -ELIBACC;
	LR_LOG(INFO, ETHDEV, "%s: driver %s loaded from %s\n", port_name, drv,
	       path);
	return 1;
}

static void
reset_fp_ops(uint16_t port_id)
{
	struct lr_eth_fp_ops *fp = &lr_eth_fp_ops[port_id];

	for (unsigned q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		fp->rx[q].fn = lr_eth_rx_burst_dummy;
		fp->rx[q].q = NULL;
		fp->tx[q].fn = lr_eth_tx_burst_dummy;
		fp->tx[q].q = NULL;
	}
}

void
lr_eth_random_mac(struct lr_ether_addr *mac, uint16_t port_id, uint32_t seed)
{
	/* 0x02: locally administered, unicast. */
	mac->addr_bytes[0] = 0x02;
	mac->addr_bytes[1] = 'l';
	mac->addr_bytes[2] = 'r';
	mac->addr_bytes[3] = (uint8_t)(seed >> 8);
	mac->addr_bytes[4] = (uint8_t)seed;
	mac->addr_bytes[5] = (uint8_t)port_id;
}

struct lr_eth_dev *
lr_eth_dev_allocate(const char *name, const struct lr_eth_driver *drv)
{
	struct lr_eth_dev *dev = NULL;
	unsigned i;

	if (strlen(name) >= LR_ETH_NAME_MAX_LEN) {
		LR_LOG(ERR, ETHDEV, "port '%s': name longer than %d\n", name,
		       LR_ETH_NAME_MAX_LEN - 1);
		lr_errno = ENAMETOOLONG;
		return NULL;
	}
	pthread_mutex_lock(&ethdev_lock);
	for (i = 0; i < LR_MAX_ETHPORTS; i++) {
		if (devs[i].state != LR_ETH_DEV_UNUSED &&
		    strcmp(devs[i].data_store.name, name) == 0) {
			pthread_mutex_unlock(&ethdev_lock);
			LR_LOG(ERR, ETHDEV,
			       "%s: a port of that name exists (port %u)\n",
			       name, i);
			lr_errno = EEXIST;
			return NULL;
		}
	}
	for (i = 0; i < LR_MAX_ETHPORTS; i++) {
		if (devs[i].state == LR_ETH_DEV_UNUSED) {
			dev = &devs[i];
			break;
		}
	}
	if (dev == NULL) {
		pthread_mutex_unlock(&ethdev_lock);
		LR_LOG(ERR, ETHDEV, "%s: all %d port ids in use\n", name,
		       LR_MAX_ETHPORTS);
		lr_errno = ENOSPC;
		return NULL;
	}
	memset(dev, 0, sizeof(*dev));
	dev->state = LR_ETH_DEV_PROBING;
	dev->driver = drv;
	dev->data = &dev->data_store;
	dev->rx_pkt_burst = lr_eth_rx_burst_dummy;
	dev->tx_pkt_burst = lr_eth_tx_burst_dummy;
	strcpy(dev->data->name, name);
	dev->data->port_id = (uint16_t)i;
	dev->data->mtu = LR_ETHER_MTU;
	dev->data->socket_id = lr_socket_id();
	lr_eth_random_mac(&dev->data->mac_addr, (uint16_t)i, 0);
	pthread_mutex_unlock(&ethdev_lock);
	return dev;
}

void
lr_eth_dev_probing_finish(struct lr_eth_dev *dev)
{
	pthread_mutex_lock(&ethdev_lock);
	dev->state = LR_ETH_DEV_ATTACHED;
	pthread_mutex_unlock(&ethdev_lock);
}

void
lr_eth_dev_release_port(struct lr_eth_dev *dev)
{
	uint16_t port_id = dev->data->port_id;

	reset_fp_ops(port_id);
	free(dev->xstats_base);
	pthread_mutex_lock(&ethdev_lock);
	memset(dev, 0, sizeof(*dev));
	dev->state = LR_ETH_DEV_UNUSED;
	pthread_mutex_unlock(&ethdev_lock);
}

struct lr_eth_dev *
lr_eth_dev_get(uint16_t port_id)
{
	if (port_id >= LR_MAX_ETHPORTS ||
	    devs[port_id].state != LR_ETH_DEV_ATTACHED)
		return NULL;
	return &devs[port_id];
}

/* The port, or NULL after logging "port N: no such port (in what)". */
static struct lr_eth_dev *
port_or_log(uint16_t port_id, const char *what)
{
	struct lr_eth_dev *dev = lr_eth_dev_get(port_id);

	if (dev == NULL)
		LR_LOG(ERR, ETHDEV, "port %u: no such port (%s)\n", port_id,
		       what);
	return dev;
}

#define GET_DEV_OR_RET(dev, port_id)                                           \
	do {                                                                   \
		(dev) = port_or_log((port_id), __func__);                      \
		if ((dev) == NULL)                                             \
			return -ENODEV;                                        \
	} while (0)

/* No driver for port name: say so, naming the driver the name asks for
 * and the drivers there are (built in or loaded, and the plugins that can
 * be), after who ("--vdev 'net_x0'") or the name. */
static void
no_driver(const char *name, const char *who)
{
	char drv[LR_ETH_NAME_MAX_LEN], list[1024];

	plugin_driver_name(name, drv, sizeof(drv));
	lr_eth_driver_list(list, sizeof(list));
	if (drv[0] != '\0')
		LR_LOG(ERR, ETHDEV, "%s: no driver '%s' (drivers: %s)\n",
		       who != NULL ? who : name, drv, list);
	else
		LR_LOG(ERR, ETHDEV,
		       "%s: no driver for port name '%s' (drivers: %s)\n",
		       who != NULL ? who : name, name, list);
}

/* The driver of the port da names, loading its plugin when it is one (and
 * then reading devargs again with the keys it takes bare): 0 with *drv,
 * -ENOENT after no_driver(), or -errno after a message. */
static int
driver_of(struct lr_devargs *da, const char *devargs, const char *who,
	  const struct lr_eth_driver **drv)
{
	int ret;

	*drv = driver_for_port(da->name);
	if (*drv != NULL)
		return 0;
	ret = plugin_load_for(da->name);
	if (ret < 0)
		return ret;
	*drv = ret > 0 ? driver_for_port(da->name) : NULL;
	if (*drv == NULL) {
		no_driver(da->name, who);
		return -ENOENT;
	}
	if ((*drv)->flag_keys != NULL)
		return lr_devargs_parse_flags(da, devargs, (*drv)->flag_keys);
	return 0;
}

/* lr_eth_dev_create(), with who ("--vdev 'DEVARGS'", or NULL) naming where
 * devargs came from: then every failure ends with a line that begins with
 * it. */
static int
dev_create(const char *devargs, const char *who)
{
	struct lr_devargs *da;
	const struct lr_eth_driver *drv;
	struct lr_eth_dev *dev;
	bool said = false; /* a line beginning with who was logged */
	int ret;

	da = malloc(sizeof(*da));
	if (da == NULL)
		return -ENOMEM;
	/* The driver first (the name prefixes the string), for the keys it
	 * takes bare. */
	drv = devargs != NULL ? driver_for_port(devargs) : NULL;
	ret = lr_devargs_parse_flags(da, devargs,
				     drv != NULL ? drv->flag_keys : NULL);
	if (ret < 0)
		goto free_args;
	ret = driver_of(da, devargs, who, &drv);
	said = ret == -ENOENT;
	if (ret < 0)
		goto free_args;
	ret = lr_devargs_check_keys(da, drv->keys);
	if (ret < 0)
		goto free_args;
	dev = lr_eth_dev_allocate(da->name, drv);
	if (dev == NULL) {
		ret = -lr_errno;
		goto free_args;
	}
	ret = drv->probe(dev, da);
	if (ret < 0 || dev->dev_ops == NULL) {
		if (ret < 0)
			LR_LOG(ERR, ETHDEV,
			       "%s: driver %s could not create the port: %s\n",
			       who != NULL ? who : da->name, drv->name,
			       lr_strerror(-ret));
		else
			LR_LOG(ERR, ETHDEV, "%s: driver %s set no operations\n",
			       who != NULL ? who : da->name, drv->name);
		ret = ret < 0 ? ret : -EINVAL;
		said = true;
		goto release_port;
	}
	lr_eth_dev_probing_finish(dev);
	LR_LOG(INFO, ETHDEV, "port %u: %s (driver %s)\n", dev->data->port_id,
	       dev->data->name, drv->name);
	ret = dev->data->port_id;
	free(da);
	return ret;

release_port:
	lr_eth_dev_release_port(dev);
free_args:
	free(da);
	if (who != NULL && !said)
		LR_LOG(ERR, ETHDEV, "%s: %s\n", who, lr_strerror(-ret));
	return ret;
}

int
lr_eth_dev_create(const char *devargs)
{
	return dev_create(devargs, NULL);
}

int
lr_eth_dev_probe_eal_vdevs(void)
{
	unsigned n = lr_eal_vdev_count();
	int ports[LR_EAL_MAX_VDEV];
	char who[1024];

	for (unsigned i = 0; i < n; i++) {
		int ret;

		snprintf(who, sizeof(who), "--vdev '%s'", lr_eal_vdev(i));
		ret = dev_create(lr_eal_vdev(i), who);
		if (ret < 0) {
			while (i-- > 0)
				lr_eth_dev_close((uint16_t)ports[i]);
			return ret;
		}
		ports[i] = ret;
	}
	return (int)n;
}

unsigned
lr_eth_dev_count_avail(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < LR_MAX_ETHPORTS; i++)
		n += devs[i].state == LR_ETH_DEV_ATTACHED;
	return n;
}

int
lr_eth_dev_is_valid_port(uint16_t port_id)
{
	return lr_eth_dev_get(port_id) != NULL;
}

uint16_t
lr_eth_find_next(uint16_t port_id)
{
	while (port_id < LR_MAX_ETHPORTS &&
	       devs[port_id].state != LR_ETH_DEV_ATTACHED)
		port_id++;
	return port_id;
}

int
lr_eth_dev_get_port_by_name(const char *name, uint16_t *port_id)
{
	for (uint16_t i = 0; i < LR_MAX_ETHPORTS; i++) {
		if (devs[i].state == LR_ETH_DEV_ATTACHED &&
		    strcmp(devs[i].data->name, name) == 0) {
			*port_id = i;
			return 0;
		}
	}
	return -ENODEV;
}

const char *
lr_eth_dev_name(uint16_t port_id)
{
	struct lr_eth_dev *dev = lr_eth_dev_get(port_id);

	return dev ? dev->data->name : NULL;
}

static void
info_fill(struct lr_eth_dev *dev, struct lr_eth_dev_info *info)
{
	memset(info, 0, sizeof(*info));
	info->driver_name = dev->driver->name;
	info->max_rx_queues = DEFAULT_MAX_QUEUES;
	info->max_tx_queues = DEFAULT_MAX_QUEUES;
	info->min_mtu = DEFAULT_MIN_MTU;
	info->max_mtu = DEFAULT_MAX_MTU;
	info->min_rx_desc = DEFAULT_MIN_DESC;
	info->max_rx_desc = DEFAULT_MAX_DESC;
	info->min_tx_desc = DEFAULT_MIN_DESC;
	info->max_tx_desc = DEFAULT_MAX_DESC;
	info->socket_id = dev->data->socket_id;
	if (dev->dev_ops->dev_infos_get)
		dev->dev_ops->dev_infos_get(dev, info);
	if (info->max_rx_queues > LR_MAX_QUEUES_PER_PORT)
		info->max_rx_queues = LR_MAX_QUEUES_PER_PORT;
	if (info->max_tx_queues > LR_MAX_QUEUES_PER_PORT)
		info->max_tx_queues = LR_MAX_QUEUES_PER_PORT;
}

int
lr_eth_dev_info_get(uint16_t port_id, struct lr_eth_dev_info *info)
{
	struct lr_eth_dev *dev;

	GET_DEV_OR_RET(dev, port_id);
	info_fill(dev, info);
	return 0;
}

static void
release_rxq(struct lr_eth_dev *dev, uint16_t q)
{
	if (dev->data->rx_queues[q] && dev->dev_ops->rx_queue_release)
		dev->dev_ops->rx_queue_release(dev, q);
	dev->data->rx_queues[q] = NULL;
	dev->data->rx_mempool[q] = NULL;
}

static void
release_txq(struct lr_eth_dev *dev, uint16_t q)
{
	if (dev->data->tx_queues[q] && dev->dev_ops->tx_queue_release)
		dev->dev_ops->tx_queue_release(dev, q);
	dev->data->tx_queues[q] = NULL;
}

static int
eth_dev_configure_locked(uint16_t port_id, uint16_t nb_rx_queue,
		     uint16_t nb_tx_queue, const struct lr_eth_conf *conf)
{
	struct lr_eth_dev *dev;
	struct lr_eth_dev_data *d;
	struct lr_eth_dev_info info;
	struct lr_eth_conf defconf = {0};
	uint16_t old_rx, old_tx;
	int ret;

	GET_DEV_OR_RET(dev, port_id);
	d = dev->data;
	if (d->started) {
		LR_LOG(ERR, ETHDEV,
		       "port %u (%s): configure: port is started\n", port_id,
		       d->name);
		return -EBUSY;
	}
	info_fill(dev, &info);
	if (nb_rx_queue == 0 && nb_tx_queue == 0) {
		LR_LOG(ERR, ETHDEV,
		       "port %u (%s): configure: no rx and no tx queue\n",
		       port_id, d->name);
		return -EINVAL;
	}
	if (nb_rx_queue > info.max_rx_queues ||
	    nb_tx_queue > info.max_tx_queues) {
		LR_LOG(ERR, ETHDEV,
		       "port %u (%s): configure: %u rx / %u tx queues, at most "
		       "%u / %u\n",
		       port_id, d->name, nb_rx_queue, nb_tx_queue,
		       info.max_rx_queues, info.max_tx_queues);
		return -EINVAL;
	}
	if (conf == NULL)
		conf = &defconf;
	if (conf->mtu &&
	    (conf->mtu < info.min_mtu || conf->mtu > info.max_mtu)) {
		LR_LOG(ERR, ETHDEV,
		       "port %u (%s): configure: mtu %u outside %u..%u\n",
		       port_id, d->name, conf->mtu, info.min_mtu, info.max_mtu);
		return -EINVAL;
	}
	old_rx = d->nb_rx_queues;
	old_tx = d->nb_tx_queues;
	d->nb_rx_queues = nb_rx_queue;
	d->nb_tx_queues = nb_tx_queue;
	if (dev->dev_ops->dev_configure) {
		ret = dev->dev_ops->dev_configure(dev);
		if (ret < 0) {
			d->nb_rx_queues = old_rx;
			d->nb_tx_queues = old_tx;
			LR_LOG(ERR, ETHDEV,
			       "port %u (%s): configure: driver refused: %s\n",
			       port_id, d->name, lr_strerror(-ret));
			return ret;
		}
	}
	/* Queues beyond the new counts go. */
	for (uint16_t q = nb_rx_queue; q < old_rx; q++)
		release_rxq(dev, q);
	for (uint16_t q = nb_tx_queue; q < old_tx; q++)
		release_txq(dev, q);
	d->conf = *conf;
	if (conf->mtu)
		d->mtu = conf->mtu;
	d->promiscuous = conf->promiscuous ? 1 : d->promiscuous;
	d->configured = 1;
	return 0;
}

/* Common checks of queue setup; 0 or -errno after logging. */
static int
queue_setup_check(struct lr_eth_dev *dev, const char *dir, uint16_t q,
		  uint16_t nb_q, uint16_t nb_desc, uint16_t min_desc,
		  uint16_t max_desc)
{
	struct lr_eth_dev_data *d = dev->data;

	if (!d->configured) {
		LR_LOG(ERR, ETHDEV,
		       "port %u (%s): %s queue %u: port not configured\n",
		       d->port_id, d->name, dir, q);
		return -EINVAL;
	}
	if (d->started) {
		LR_LOG(ERR, ETHDEV,
		       "port %u (%s): %s queue %u: port is started\n",
		       d->port_id, d->name, dir, q);
		return -EBUSY;
	}
	if (q >= nb_q) {
		LR_LOG(ERR, ETHDEV,
		       "port %u (%s): %s queue %u: port has %u %s queues\n",
		       d->port_id, d->name, dir, q, nb_q, dir);
		return -EINVAL;
	}
	if (nb_desc < min_desc || nb_desc > max_desc) {
		LR_LOG(ERR, ETHDEV,
		       "port %u (%s): %s queue %u: %u descriptors outside "
		       "%u..%u\n",
		       d->port_id, d->name, dir, q, nb_desc, min_desc,
		       max_desc);
		return -EINVAL;
	}
	return 0;
}

static int
eth_rx_queue_setup_locked(uint16_t port_id, uint16_t rx_queue_id,
		      uint16_t nb_rx_desc, int socket_id,
		      const struct lr_eth_rxconf *rx_conf,
		      struct lr_mempool *mp)
{
	struct lr_eth_dev *dev;
	struct lr_eth_dev_info info;
	int ret;

	GET_DEV_OR_RET(dev, port_id);
	info_fill(dev, &info);
	ret = queue_setup_check(dev, "rx", rx_queue_id, dev->data->nb_rx_queues,
				nb_rx_desc, info.min_rx_desc, info.max_rx_desc);
	if (ret < 0)
		return ret;
	if (mp == NULL) {
		LR_LOG(ERR, ETHDEV, "port %u (%s): rx queue %u: no mbuf pool\n",
		       port_id, dev->data->name, rx_queue_id);
		return -EINVAL;
	}
	if (dev->dev_ops->rx_queue_setup == NULL)
		return -ENOTSUP;
	release_rxq(dev, rx_queue_id);
	if (socket_id == LR_SOCKET_ID_ANY)
		socket_id = dev->data->socket_id;
	ret = dev->dev_ops->rx_queue_setup(dev, rx_queue_id, nb_rx_desc,
					   socket_id, rx_conf, mp);
	if (ret < 0) {
		LR_LOG(ERR, ETHDEV, "port %u (%s): rx queue %u: %s\n", port_id,
		       dev->data->name, rx_queue_id, lr_strerror(-ret));
		dev->data->rx_queues[rx_queue_id] = NULL;
		return ret;
	}
	dev->data->rx_mempool[rx_queue_id] = mp;
	return 0;
}

static int
eth_tx_queue_setup_locked(uint16_t port_id, uint16_t tx_queue_id,
		      uint16_t nb_tx_desc, int socket_id,
		      const struct lr_eth_txconf *tx_conf)
{
	struct lr_eth_dev *dev;
	struct lr_eth_dev_info info;
	int ret;

	GET_DEV_OR_RET(dev, port_id);
	info_fill(dev, &info);
	ret = queue_setup_check(dev, "tx", tx_queue_id, dev->data->nb_tx_queues,
				nb_tx_desc, info.min_tx_desc, info.max_tx_desc);
	if (ret < 0)
		return ret;
	if (dev->dev_ops->tx_queue_setup == NULL)
		return -ENOTSUP;
	release_txq(dev, tx_queue_id);
	if (socket_id == LR_SOCKET_ID_ANY)
		socket_id = dev->data->socket_id;
	ret = dev->dev_ops->tx_queue_setup(dev, tx_queue_id, nb_tx_desc,
					   socket_id, tx_conf);
	if (ret < 0) {
		LR_LOG(ERR, ETHDEV, "port %u (%s): tx queue %u: %s\n", port_id,
		       dev->data->name, tx_queue_id, lr_strerror(-ret));
		dev->data->tx_queues[tx_queue_id] = NULL;
		return ret;
	}
	return 0;
}

int
lr_eth_dev_start(uint16_t port_id)
{
	struct lr_eth_dev *dev;
	struct lr_eth_dev_data *d;
	struct lr_eth_fp_ops *fp;
	int ret;

	GET_DEV_OR_RET(dev, port_id);
	d = dev->data;
	if (d->started)
		return 0;
	if (!d->configured) {
		LR_LOG(ERR, ETHDEV,
		       "port %u (%s): start: port not configured\n", port_id,
		       d->name);
		return -EINVAL;
	}
	for (uint16_t q = 0; q < d->nb_rx_queues; q++) {
		if (d->rx_queues[q] == NULL) {
			LR_LOG(ERR, ETHDEV,
			       "port %u (%s): start: rx queue %u not set up\n",
			       port_id, d->name, q);
			return -EINVAL;
		}
	}
	for (uint16_t q = 0; q < d->nb_tx_queues; q++) {
		if (d->tx_queues[q] == NULL) {
			LR_LOG(ERR, ETHDEV,
			       "port %u (%s): start: tx queue %u not set up\n",
			       port_id, d->name, q);
			return -EINVAL;
		}
	}
	if (dev->dev_ops->dev_start) {
		ret = dev->dev_ops->dev_start(dev);
		if (ret < 0) {
			LR_LOG(ERR, ETHDEV, "port %u (%s): start: %s\n",
			       port_id, d->name, lr_strerror(-ret));
			return ret;
		}
	}
	fp = &lr_eth_fp_ops[port_id];
	for (uint16_t q = 0; q < d->nb_rx_queues; q++) {
		fp->rx[q].q = d->rx_queues[q];
		fp->rx[q].fn = dev->rx_pkt_burst;
	}
	for (uint16_t q = 0; q < d->nb_tx_queues; q++) {
		fp->tx[q].q = d->tx_queues[q];
		fp->tx[q].fn = dev->tx_pkt_burst;
	}
	d->started = 1;
	if (dev->dev_ops->link_update == NULL)
		d->link.link_status = 1;
	return 0;
}

int
lr_eth_dev_stop(uint16_t port_id)
{
	struct lr_eth_dev *dev;
	int ret = 0;

	GET_DEV_OR_RET(dev, port_id);
	if (!dev->data->started)
		return 0;
	reset_fp_ops(port_id);
	if (dev->dev_ops->dev_stop)
		ret = dev->dev_ops->dev_stop(dev);
	dev->data->started = 0;
	if (dev->dev_ops->link_update == NULL)
		dev->data->link.link_status = 0;
	return ret;
}

static int
eth_dev_close_locked(uint16_t port_id)
{
	struct lr_eth_dev *dev;
	int ret = 0;

	GET_DEV_OR_RET(dev, port_id);
	lr_eth_dev_stop(port_id);
	for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
		release_rxq(dev, q);
		release_txq(dev, q);
	}
	if (dev->dev_ops->dev_close)
		ret = dev->dev_ops->dev_close(dev);
	LR_LOG(INFO, ETHDEV, "port %u: %s closed\n", port_id, dev->data->name);
	lr_eth_dev_release_port(dev);
	return ret;
}

int
lr_eth_dev_is_started(uint16_t port_id)
{
	struct lr_eth_dev *dev = lr_eth_dev_get(port_id);

	return dev ? dev->data->started : 0;
}

int
lr_eth_macaddr_get(uint16_t port_id, struct lr_ether_addr *mac)
{
	struct lr_eth_dev *dev;

	GET_DEV_OR_RET(dev, port_id);
	*mac = dev->data->mac_addr;
	return 0;
}

int
lr_eth_dev_default_mac_addr_set(uint16_t port_id,
				const struct lr_ether_addr *mac)
{
	struct lr_eth_dev *dev;
	char buf[LR_ETHER_ADDR_FMT_SIZE];
	int ret;

	GET_DEV_OR_RET(dev, port_id);
	if (mac == NULL || !lr_ether_addr_is_valid_assigned(mac)) {
		if (mac)
			lr_ether_format_addr(buf, sizeof(buf), mac);
		LR_LOG(
		    ERR, ETHDEV,
		    "port %u (%s): MAC address %s is not a unicast address\n",
		    port_id, dev->data->name, mac ? buf : "(null)");
		return -EINVAL;
	}
	if (dev->dev_ops->mac_addr_set) {
		ret = dev->dev_ops->mac_addr_set(dev, mac);
		if (ret < 0)
			return ret;
	}
	dev->data->mac_addr = *mac;
	return 0;
}

static int
promisc_set(uint16_t port_id, int on)
{
	struct lr_eth_dev *dev;
	int ret = 0;

	dev = port_or_log(port_id, on ? "lr_eth_promiscuous_enable"
				      : "lr_eth_promiscuous_disable");
	if (dev == NULL)
		return -ENODEV;
	if (on && dev->dev_ops->promiscuous_enable)
		ret = dev->dev_ops->promiscuous_enable(dev);
	else if (!on && dev->dev_ops->promiscuous_disable)
		ret = dev->dev_ops->promiscuous_disable(dev);
	if (ret == 0)
		dev->data->promiscuous = (uint8_t)on;
	return ret;
}

int
lr_eth_promiscuous_enable(uint16_t port_id)
{
	return promisc_set(port_id, 1);
}

int
lr_eth_promiscuous_disable(uint16_t port_id)
{
	return promisc_set(port_id, 0);
}

int
lr_eth_promiscuous_get(uint16_t port_id)
{
	struct lr_eth_dev *dev;

	GET_DEV_OR_RET(dev, port_id);
	return dev->data->promiscuous;
}

static int
link_get(uint16_t port_id, struct lr_eth_link *link, int wait)
{
	struct lr_eth_dev *dev;

	dev = port_or_log(port_id, "lr_eth_link_get");
	if (dev == NULL)
		return -ENODEV;
	if (dev->dev_ops->link_update) {
		int ret = dev->dev_ops->link_update(dev, wait);

		if (ret < 0)
			return ret;
	}
	*link = dev->data->link;
	return 0;
}

int
lr_eth_link_get_nowait(uint16_t port_id, struct lr_eth_link *link)
{
	return link_get(port_id, link, 0);
}

int
lr_eth_link_get(uint16_t port_id, struct lr_eth_link *link)
{
	return link_get(port_id, link, 1);
}

int
lr_eth_dev_set_mtu(uint16_t port_id, uint16_t mtu)
{
	struct lr_eth_dev *dev;
	struct lr_eth_dev_info info;
	int ret;

	GET_DEV_OR_RET(dev, port_id);
	info_fill(dev, &info);
	if (mtu < info.min_mtu || mtu > info.max_mtu) {
		LR_LOG(ERR, ETHDEV, "port %u (%s): mtu %u outside %u..%u\n",
		       port_id, dev->data->name, mtu, info.min_mtu,
		       info.max_mtu);
		return -EINVAL;
	}
	if (dev->dev_ops->mtu_set) {
		ret = dev->dev_ops->mtu_set(dev, mtu);
		if (ret < 0)
			return ret;
	}
	dev->data->mtu = mtu;
	return 0;
}

int
lr_eth_dev_get_mtu(uint16_t port_id, uint16_t *mtu)
{
	struct lr_eth_dev *dev;

	GET_DEV_OR_RET(dev, port_id);
	*mtu = dev->data->mtu;
	return 0;
}

/* The driver's counters as they stand (never decreasing). */
static void
raw_stats(struct lr_eth_dev *dev, struct lr_eth_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (dev->dev_ops->stats_get)
		dev->dev_ops->stats_get(dev, s);
}

int
lr_eth_stats_get(uint16_t port_id, struct lr_eth_stats *stats)
{
	struct lr_eth_dev *dev;
	uint64_t *v, *b;

	GET_DEV_OR_RET(dev, port_id);
	raw_stats(dev, stats);
	/* struct lr_eth_stats is all uint64_t: subtract field by field. */
	v = (uint64_t *)stats;
	b = (uint64_t *)&dev->stats_base;
	for (size_t i = 0; i < sizeof(*stats) / sizeof(uint64_t); i++)
		v[i] -= b[i];
	return 0;
}

void
lr_eth_stats_add_queue(struct lr_eth_stats *s, unsigned q,
		       const struct lr_eth_queue_counters *rx,
		       const struct lr_eth_queue_counters *tx)
{
	/* The polling threads keep counting (lr_counter_add()): read every
	 * counter once, relaxed. */
	uint64_t rp = lr_counter_read(&rx->packets);
	uint64_t rb = lr_counter_read(&rx->bytes);
	uint64_t re = lr_counter_read(&rx->errors);
	uint64_t tp = lr_counter_read(&tx->packets);
	uint64_t tb = lr_counter_read(&tx->bytes);
	uint64_t te = lr_counter_read(&tx->errors);

	s->ipackets += rp;
	s->ibytes += rb;
	s->ierrors += re;
	s->rx_nombuf += lr_counter_read(&rx->nombuf);
	s->imissed += lr_counter_read(&rx->missed);
	s->opackets += tp;
	s->obytes += tb;
	s->oerrors += te;
	if (q < LR_ETH_QUEUE_STAT_CNTRS) {
		s->q_ipackets[q] += rp;
		s->q_ibytes[q] += rb;
		s->q_opackets[q] += tp;
		s->q_obytes[q] += tb;
		s->q_errors[q] += re + te;
	}
}

int
lr_eth_xstats_values_fill(uint64_t *values, unsigned n, const uint64_t *v,
			  unsigned count)
{
	for (unsigned i = 0; values != NULL && i < n && i < count; i++)
		values[i] = v[i];
	return (int)count;
}

static int
driver_xstats_count(struct lr_eth_dev *dev)
{
	const struct lr_eth_dev_ops *ops = dev->dev_ops;

	if (ops->xstats_get == NULL)
		return 0;
	if (ops->xstats_get_names != NULL)
		return ops->xstats_get_names(dev, NULL, 0);
	return (int)ops->nb_xstat_names;
}

/* The driver's n extended stats names: its callback or its table. */
static void
driver_xstats_names(struct lr_eth_dev *dev, struct lr_eth_xstat_name *names,
		    unsigned n)
{
	const struct lr_eth_dev_ops *ops = dev->dev_ops;

	if (ops->xstats_get_names != NULL) {
		ops->xstats_get_names(dev, names, n);
		return;
	}
	for (unsigned i = 0; i < n && i < ops->nb_xstat_names; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s",
			 ops->xstat_names[i]);
}

int
lr_eth_stats_reset(uint16_t port_id)
{
	struct lr_eth_dev *dev;
	int n;

	GET_DEV_OR_RET(dev, port_id);
	raw_stats(dev, &dev->stats_base);
	n = driver_xstats_count(dev);
	if (n > 0) {
		if ((unsigned)n != dev->nb_xstats_base) {
			uint64_t *nb = calloc((size_t)n, sizeof(*nb));

			if (nb == NULL)
				return -ENOMEM;
			free(dev->xstats_base);
			dev->xstats_base = nb;
			dev->nb_xstats_base = (unsigned)n;
		}
		dev->dev_ops->xstats_get(dev, dev->xstats_base, (unsigned)n);
	}
	return 0;
}

/* Per-queue xstats: rx_qN_packets, rx_qN_bytes, tx_qN_packets, tx_qN_bytes. */
static unsigned
nb_queue_xstats(const struct lr_eth_dev *dev)
{
	return 2u * LR_MIN(dev->data->nb_rx_queues, LR_ETH_QUEUE_STAT_CNTRS) +
	       2u * LR_MIN(dev->data->nb_tx_queues, LR_ETH_QUEUE_STAT_CNTRS);
}

int
lr_eth_xstats_get_names(uint16_t port_id, struct lr_eth_xstat_name *names,
			unsigned n)
{
	struct lr_eth_dev *dev;
	unsigned i = 0, nq, nd;

	GET_DEV_OR_RET(dev, port_id);
	nq = nb_queue_xstats(dev);
	nd = (unsigned)driver_xstats_count(dev);
	if (names == NULL || n < NB_BASIC + nq + nd)
		return (int)(NB_BASIC + nq + nd);
	for (; i < NB_BASIC; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s",
			 basic_names[i]);
	for (unsigned q = 0;
	     q < dev->data->nb_rx_queues && q < LR_ETH_QUEUE_STAT_CNTRS; q++) {
		snprintf(names[i++].name, LR_ETH_XSTATS_NAME_SIZE,
			 "rx_q%u_packets", q);
		snprintf(names[i++].name, LR_ETH_XSTATS_NAME_SIZE,
			 "rx_q%u_bytes", q);
	}
	for (unsigned q = 0;
	     q < dev->data->nb_tx_queues && q < LR_ETH_QUEUE_STAT_CNTRS; q++) {
		snprintf(names[i++].name, LR_ETH_XSTATS_NAME_SIZE,
			 "tx_q%u_packets", q);
		snprintf(names[i++].name, LR_ETH_XSTATS_NAME_SIZE,
			 "tx_q%u_bytes", q);
	}
	if (nd)
		driver_xstats_names(dev, names + i, nd);
	return (int)(i + nd);
}

int
lr_eth_xstats_get(uint16_t port_id, struct lr_eth_xstat *xstats, unsigned n)
{
	struct lr_eth_dev *dev;
	struct lr_eth_stats s;
	unsigned i = 0, nq, nd;
	uint64_t *dv;

	GET_DEV_OR_RET(dev, port_id);
	nq = nb_queue_xstats(dev);
	nd = (unsigned)driver_xstats_count(dev);
	if (xstats == NULL || n < NB_BASIC + nq + nd)
		return (int)(NB_BASIC + nq + nd);
	lr_eth_stats_get(port_id, &s);
	const uint64_t basic[NB_BASIC] = {
	    s.ipackets, s.opackets, s.ibytes,  s.obytes,
	    s.imissed,	s.ierrors,  s.oerrors, s.rx_nombuf,
	};
	for (; i < NB_BASIC; i++)
		xstats[i].value = basic[i];
	for (unsigned q = 0;
	     q < dev->data->nb_rx_queues && q < LR_ETH_QUEUE_STAT_CNTRS; q++) {
		xstats[i++].value = s.q_ipackets[q];
		xstats[i++].value = s.q_ibytes[q];
	}
	for (unsigned q = 0;
	     q < dev->data->nb_tx_queues && q < LR_ETH_QUEUE_STAT_CNTRS; q++) {
		xstats[i++].value = s.q_opackets[q];
		xstats[i++].value = s.q_obytes[q];
	}
	if (nd) {
		dv = calloc(nd, sizeof(*dv));
		if (dv == NULL)
			return -ENOMEM;
		dev->dev_ops->xstats_get(dev, dv, nd);
		for (unsigned k = 0; k < nd; k++) {
			uint64_t base =
			    k < dev->nb_xstats_base ? dev->xstats_base[k] : 0;

			xstats[i + k].value = dv[k] - base;
		}
		free(dv);
	}
	for (unsigned k = 0; k < i + nd; k++)
		xstats[k].id = k;
	return (int)(i + nd);
}

int
lr_eth_xstats_get_by_name(uint16_t port_id, const char *name, uint64_t *value)
{
	struct lr_eth_xstat_name *names;
	struct lr_eth_xstat *vals;
	int n, ret = -ENOENT;

	n = lr_eth_xstats_get_names(port_id, NULL, 0);
	if (n < 0)
		return n;
	names = calloc((size_t)n, sizeof(*names));
	vals = calloc((size_t)n, sizeof(*vals));
	if (names == NULL || vals == NULL) {
		ret = -ENOMEM;
		goto free_arrays;
	}
	if (lr_eth_xstats_get_names(port_id, names, (unsigned)n) != n ||
	    lr_eth_xstats_get(port_id, vals, (unsigned)n) != n) {
		ret = -EAGAIN;
		goto free_arrays;
	}
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i].name, name) == 0) {
			*value = vals[i].value;
			ret = 0;
			break;
		}
	}
free_arrays:
	free(names);
	free(vals);
	return ret;
}

/* The extended stats that are not zero, "name value", four a line. */
static int
dump_xstats(FILE *f, uint16_t port_id)
{
	struct lr_eth_xstat_name *names = NULL;
	struct lr_eth_xstat *vals = NULL;
	int n = lr_eth_xstats_get_names(port_id, NULL, 0), shown = 0;

	if (n <= 0)
		return n < 0 ? n : 0;
	names = calloc((size_t)n, sizeof(*names));
	vals = calloc((size_t)n, sizeof(*vals));
	if (names == NULL || vals == NULL ||
	    lr_eth_xstats_get_names(port_id, names, (unsigned)n) != n ||
	    lr_eth_xstats_get(port_id, vals, (unsigned)n) != n) {
		free(names);
		free(vals);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		if (vals[i].value == 0)
			continue;
		fprintf(f, "%s%s %" PRIu64,
			shown == 0	 ? "  xstats: "
			: shown % 4 == 0 ? ",\n          "
					 : ", ",
			names[vals[i].id].name, vals[i].value);
		shown++;
	}
	if (shown != 0)
		fputc('\n', f);
	free(names);
	free(vals);
	return 0;
}

int
lr_eth_dev_dump(FILE *f, uint16_t port_id)
{
	struct lr_eth_dev *dev;
	struct lr_eth_stats s;
	char mac[LR_ETHER_ADDR_FMT_SIZE];

	GET_DEV_OR_RET(dev, port_id);
	lr_eth_stats_get(port_id, &s);
	lr_ether_format_addr(mac, sizeof(mac), &dev->data->mac_addr);
	fprintf(f, "port %u: %s driver %s mac %s mtu %u %s%s rxq %u txq %u\n",
		port_id, dev->data->name, dev->driver->name, mac,
		dev->data->mtu, dev->data->started ? "started" : "stopped",
		dev->data->promiscuous ? " promisc" : "",
		dev->data->nb_rx_queues, dev->data->nb_tx_queues);
	fprintf(f,
		"  rx %" PRIu64 " pkts %" PRIu64 " bytes, missed %" PRIu64
		" errors %" PRIu64 " nombuf %" PRIu64 "\n",
		s.ipackets, s.ibytes, s.imissed, s.ierrors, s.rx_nombuf);
	fprintf(f,
		"  tx %" PRIu64 " pkts %" PRIu64 " bytes, errors %" PRIu64 "\n",
		s.opackets, s.obytes, s.oerrors);
	return dump_xstats(f, port_id);
}

int
lr_eth_dev_validate(void)
{
	unsigned n = 0;

	for (uint16_t p = 0; p < LR_MAX_ETHPORTS; p++) {
		const struct lr_eth_dev *dev = &devs[p];
		const struct lr_eth_fp_ops *fp = &lr_eth_fp_ops[p];
		int started =
		    dev->state == LR_ETH_DEV_ATTACHED && dev->data->started;

		if (dev->state == LR_ETH_DEV_ATTACHED) {
			n++;
			if (dev->data->port_id != p) {
				LR_LOG(ERR, ETHDEV,
				       "port %u: data says port %u\n", p,
				       dev->data->port_id);
				return -EINVAL;
			}
		}
		for (uint16_t q = 0; q < LR_MAX_QUEUES_PER_PORT; q++) {
			int rx_live = started && q < dev->data->nb_rx_queues;
			int tx_live = started && q < dev->data->nb_tx_queues;

			if (rx_live ? (fp->rx[q].fn != dev->rx_pkt_burst ||
				       fp->rx[q].q != dev->data->rx_queues[q] ||
				       fp->rx[q].q == NULL)
				    : (fp->rx[q].fn != lr_eth_rx_burst_dummy)) {
				LR_LOG(ERR, ETHDEV,
				       "port %u: rx queue %u: fast-path entry "
				       "does not match the port state\n",
				       p, q);
				return -EINVAL;
			}
			if (tx_live ? (fp->tx[q].fn != dev->tx_pkt_burst ||
				       fp->tx[q].q != dev->data->tx_queues[q] ||
				       fp->tx[q].q == NULL)
				    : (fp->tx[q].fn != lr_eth_tx_burst_dummy)) {
				LR_LOG(ERR, ETHDEV,
				       "port %u: tx queue %u: fast-path entry "
				       "does not match the port state\n",
				       p, q);
				return -EINVAL;
			}
		}
	}
	if (n != lr_eth_dev_count_avail()) {
		LR_LOG(ERR, ETHDEV, "port count %u != %u\n", n,
		       lr_eth_dev_count_avail());
		return -EINVAL;
	}
	return 0;
}

/* The control calls that free or replace what telemetry reads, under
 * lr_eth_ctl_lock_ (never taken by rx/tx bursts). */
int
lr_eth_dev_configure(uint16_t port_id, uint16_t nb_rx_queue,
		     uint16_t nb_tx_queue, const struct lr_eth_conf *conf)
{
	int rc;

	pthread_mutex_lock(&lr_eth_ctl_lock_);
	rc = eth_dev_configure_locked(port_id, nb_rx_queue, nb_tx_queue, conf);
	pthread_mutex_unlock(&lr_eth_ctl_lock_);
	return rc;
}

int
lr_eth_rx_queue_setup(uint16_t port_id, uint16_t rx_queue_id,
		      uint16_t nb_rx_desc, int socket_id,
		      const struct lr_eth_rxconf *rx_conf,
		      struct lr_mempool *mp)
{
	int rc;

	pthread_mutex_lock(&lr_eth_ctl_lock_);
	rc = eth_rx_queue_setup_locked(port_id, rx_queue_id, nb_rx_desc,
				    socket_id, rx_conf, mp);
	pthread_mutex_unlock(&lr_eth_ctl_lock_);
	return rc;
}

int
lr_eth_tx_queue_setup(uint16_t port_id, uint16_t tx_queue_id,
		      uint16_t nb_tx_desc, int socket_id,
		      const struct lr_eth_txconf *tx_conf)
{
	int rc;

	pthread_mutex_lock(&lr_eth_ctl_lock_);
	rc = eth_tx_queue_setup_locked(port_id, tx_queue_id, nb_tx_desc,
				    socket_id, tx_conf);
	pthread_mutex_unlock(&lr_eth_ctl_lock_);
	return rc;
}

int
lr_eth_dev_close(uint16_t port_id)
{
	int rc;

	pthread_mutex_lock(&lr_eth_ctl_lock_);
	rc = eth_dev_close_locked(port_id);
	pthread_mutex_unlock(&lr_eth_ctl_lock_);
	return rc;
}
