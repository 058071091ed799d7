/* SPDX-License-Identifier: BSD-3-Clause */
/* What lib/ethdev's files share; never installed. */
#ifndef ETHDEV_PRIVATE_H
#define ETHDEV_PRIVATE_H

#include <pthread.h>

/* Recursive; held by lr_eth_dev_configure(), the queue setups and
 * lr_eth_dev_close() (which free or replace queues and private state) and
 * by the telemetry handlers while they read a port. No datapath call
 * takes it. */
extern pthread_mutex_t lr_eth_ctl_lock_;

#endif /* ETHDEV_PRIVATE_H */
