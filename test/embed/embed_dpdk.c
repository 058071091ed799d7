/* SPDX-License-Identifier: BSD-3-Clause */
/* A program that calls net_dpdk's own API (test_embed.sh), so it links
 * the driver itself, shared (linerate_net_dpdk.pc) or from its static
 * archive: net_dpdk is then built in and registered before main(), and
 * no plugin is loaded for it. */
#include <errno.h>
#include <stdio.h>

#include <lr_eth_dpdk.h>
#include <lr_ethdev_driver.h>

int
main(void)
{
	int registered = lr_eth_driver_find("net_dpdk") != NULL;
	int no_port = lr_eth_dpdk_port_id(0) == -ENODEV;

	printf("net_dpdk registered: %s\n", registered ? "ok" : "FAILED");
	printf("lr_eth_dpdk_port_id(0) == -ENODEV: %s\n",
	       no_port ? "ok" : "FAILED");
	printf("embed-dpdk: %s\n", registered && no_port ? "OK" : "FAILED");
	return registered && no_port ? 0 : 1;
}
