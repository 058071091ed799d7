/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk_probe.c - net_dpdk's devargs, probe and driver (dpdk_private.h says
 * which file does what): the DPDK port of dev= found or probed (linerate's
 * memory mapped for a PCI device's DMA), the port made, and the driver
 * API of lr_eth_dpdk.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_memory.h>
#include <rte_pci.h>

#include "dpdk_private.h"
#include "lr_eth_dpdk.h"
#include "lr_ethdev_driver.h"
#include "lr_memory.h"
#include "lr_pagealloc.h"

static const char *const dpdk_keys[] = {"dev", "dpdk-args", "mbufs", NULL};

/* DPDK ports net_dpdk uses (dpdk_private.h). */
uint8_t lr_dpdk_pid_taken_[RTE_MAX_ETHPORTS];

/* The DPDK port of device string dev (name up to the first comma; a PCI
 * address in its full form); 0 and *pid, or -ENODEV. */
static int
find_port(const char *dev, uint16_t *pid)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	const char *comma = strchr(dev, ',');
	size_t n = comma ? (size_t)(comma - dev) : strlen(dev);
	struct rte_pci_addr a;

	if (n >= sizeof(name))
		return -ENODEV;
	memcpy(name, dev, n);
	name[n] = '\0';
	if (rte_pci_addr_parse(name, &a) == 0)
		rte_pci_device_name(&a, name, sizeof(name));
	return rte_eth_dev_get_port_by_name(name, pid) == 0 ? 0 : -ENODEV;
}

/* Register linerate's memory with DPDK and map it for device d's DMA
 * (PCI devices: a NIC reads linerate mbufs); failures are logged. */
static void
dma_map_memory(const char *who, struct rte_device *d)
{
	int va = rte_eal_iova_mode() == RTE_IOVA_VA;

	for (unsigned i = 0; i < lr_memseg_count(); i++) {
		const struct lr_memseg *s = lr_memseg_get(i);
		unsigned pages = (unsigned)(s->len / s->page_sz);
		int rc;

		if (!va && s->iova == NULL) {
			LR_LOG(WARNING, PMD,
			       "%s: linerate memory %p has no physical "
			       "addresses and DPDK runs IOVA as PA: not "
			       "mapped for DMA\n",
			       who, s->addr);
			continue;
		}
		rc = rte_extmem_register(s->addr, s->len,
					 va ? NULL : (rte_iova_t *)s->iova,
					 va ? 0 : pages, s->page_sz);
		if (rc != 0 && rte_errno != EEXIST) {
			LR_LOG(WARNING, PMD,
			       "%s: rte_extmem_register(%p, %zu): %s\n", who,
			       s->addr, s->len, rte_strerror(rte_errno));
			continue;
		}
		for (unsigned k = 0; k < (va ? 1 : pages); k++) {
			char *a = (char *)s->addr + (va ? 0 : k * s->page_sz);
			uint64_t iova =
			    va ? (uint64_t)(uintptr_t)a : s->iova[k];
			size_t len = va ? s->len : s->page_sz;

			if (rte_dev_dma_map(d, a, iova, len) != 0 &&
			    rte_errno != EEXIST) {
				LR_LOG(WARNING, PMD,
				       "%s: DMA map of %p (%zu bytes): %s\n",
				       who, a, len, rte_strerror(rte_errno));
				break;
			}
		}
	}
}

/* The DPDK port for dev: found, or probed (*probed = 1); 0 or -errno. */
static int
attach_port(const char *who, const char *dev, uint16_t *pid, int *probed)
{
	int rc;

	*probed = 0;
	if (find_port(dev, pid) == 0)
		return 0;
	if (lr_dpdk_eal_no_pci_ && lr_dpdk_is_pci_addr_(dev)) {
		LR_LOG(ERR, PMD,
		       "%s: dev: '%s' is a PCI device but DPDK's EAL was "
		       "started for vdevs only (--no-pci): give the first "
		       "net_dpdk port dpdk-args\n",
		       who, dev);
		return -EINVAL;
	}
	rc = rte_dev_probe(dev);
	if (rc < 0) {
		LR_LOG(ERR, PMD,
		       "%s: dev: DPDK cannot probe '%s' (no such device or "
		       "driver, or arguments its driver refuses): %s\n",
		       who, dev, rte_strerror(-rc));
		return rc;
	}
	if (find_port(dev, pid) != 0) {
		LR_LOG(ERR, PMD,
		       "%s: dev: DPDK probed '%s' but made no ethdev port of "
		       "it\n",
		       who, dev);
		return -ENODEV;
	}
	*probed = 1;
	return 0;
}

/* dev and mbufs of args into *devs and *mbufs; 0 or -EINVAL (logged). */
static int
read_args(const char *name, const struct lr_devargs *args, const char **devs,
	  unsigned *mbufs)
{
	uint64_t v;
	int rc;

	*devs = lr_devargs_get(args, "dev");
	if (*devs == NULL || (*devs)[0] == '\0' ||
	    lr_devargs_count(args, "dev") > 1) {
		LR_LOG(ERR, PMD,
		       "%s: dev: %s (one DPDK device: a PCI address or a "
		       "vdev string, e.g. dev=[net_null0,size=64])\n",
		       name,
		       *devs == NULL ? "missing" : "given empty or twice");
		return -EINVAL;
	}
	rc = lr_devargs_get_uint(args, "mbufs", 0, 0, 1u << 22, &v);
	if (rc != 0)
		return rc;
	if (v != 0 && v < 512) {
		LR_LOG(ERR, PMD,
		       "%s: mbufs: bad value '%llu' (expected 512 or more)\n",
		       name, (unsigned long long)v);
		return -EINVAL;
	}
	*mbufs = (unsigned)v;
	return 0;
}

static int
dpdk_probe(struct lr_eth_dev *dev, const struct lr_devargs *args)
{
	const char *name = dev->data->name, *devs;
	const char *eargs = lr_devargs_get(args, "dpdk-args");
	struct rte_ether_addr mac;
	struct rte_eth_dev_info di;
	struct dpdk_private *p;
	unsigned mbufs;
	uint16_t pid;
	int rc, probed;

	rc = read_args(name, args, &devs, &mbufs);
	if (rc != 0)
		return rc;
	rc = lr_dpdk_mempool_ops_register_();
	if (rc != 0)
		return rc;
	rc = lr_dpdk_eal_up_(name, eargs, devs);
	if (rc != 0)
		return rc;
	rc = attach_port(name, devs, &pid, &probed);
	if (rc != 0)
		return rc;
	if (lr_dpdk_pid_taken_[pid]) {
		LR_LOG(ERR, PMD,
		       "%s: dev: DPDK port %u ('%s') is already another "
		       "net_dpdk port's\n",
		       name, pid, devs);
		return -EBUSY;
	}
	p = calloc(1, sizeof(*p));
	if (p == NULL) {
		rc = -ENOMEM;
		goto remove_dev;
	}
	p->pid = pid;
	p->probed = (uint8_t)probed;
	p->mbufs = mbufs;
	rc = rte_eth_dev_info_get(pid, &di);
	if (rc != 0)
		goto free_priv;
	p->rdev = di.device;
	if (probed && lr_dpdk_is_pci_addr_(devs))
		dma_map_memory(name, di.device);
	if (rte_eth_macaddr_get(pid, &mac) == 0)
		memcpy(dev->data->mac_addr.addr_bytes, mac.addr_bytes,
		       sizeof(mac.addr_bytes));
	dev->data->socket_id = rte_eth_dev_socket_id(pid);
	dev->data->dev_private = p;
	dev->dev_ops = &lr_dpdk_ops_;
	lr_dpdk_pid_taken_[pid] = 1;
	LR_LOG(INFO, PMD, "%s: over DPDK port %u (%s, driver %s)\n", name, pid,
	       devs, di.driver_name);
	return 0;

free_priv:
	free(p);
remove_dev:
	if (probed) {
		struct rte_eth_dev_info d2;

		if (rte_eth_dev_info_get(pid, &d2) == 0) {
			rte_eth_dev_close(pid);
			rte_dev_remove(d2.device);
		}
	}
	return rc;
}

static struct lr_eth_driver dpdk_drv = {
    .keys = dpdk_keys,
    .usage = "dev=<PCI address or [DPDK vdev string]> "
	     "dpdk-args=[<DPDK EAL arguments>] mbufs=<n>",
    .probe = dpdk_probe,
};

LR_PMD_REGISTER(net_dpdk, dpdk_drv);

/* ------------------------------------------------------------------ */
/* Driver API.                                                          */

static struct dpdk_private *
priv_of(uint16_t port_id)
{
	struct lr_eth_dev *dev = lr_eth_dev_get(port_id);

	if (dev == NULL || dev->driver != &dpdk_drv)
		return NULL;
	return dev->data->dev_private;
}

int
lr_eth_dpdk_port_id(uint16_t port_id)
{
	struct dpdk_private *p = priv_of(port_id);

	return p ? p->pid : -ENODEV;
}

int
lr_eth_dpdk_mbufs_in_use(uint16_t port_id, unsigned *dpdk_rx,
			 unsigned *dpdk_hdr, unsigned *headers)
{
	struct dpdk_private *p = priv_of(port_id);

	if (p == NULL)
		return -ENODEV;
	*dpdk_rx = p->rx_pool ? rte_mempool_in_use_count(p->rx_pool) : 0;
	*dpdk_hdr = p->ext_pool ? rte_mempool_in_use_count(p->ext_pool) : 0;
	*headers = (p->hdrs ? lr_mempool_in_use_count(p->hdrs) : 0) +
		   (p->bound ? lr_mempool_in_use_count(p->bound) : 0);
	return 0;
}
