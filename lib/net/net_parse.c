/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Header parsing: Ethernet and its VLAN tags, IPv4 (options) or IPv6
 * (extension headers), TCP (options) or UDP. Every length is checked
 * against the frame before it is used, and read through lr_pktmbuf_read(),
 * so headers may cross segments.
 */
#include <errno.h>
#include <string.h>

#include "lr_net.h"

/* IPv6 extension headers lr_net_parse() steps over. */
#define IPV6_HOPOPTS  0
#define IPV6_ROUTING  43
#define IPV6_FRAGMENT 44
#define IPV6_AH	      51
#define IPV6_DSTOPTS  60
/* Most extension headers walked before the frame counts as bad. */
#define IPV6_EXT_MAX 8

static inline uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The EtherType after the VLAN tags; sets l2_len. */
static int
parse_l2(const struct lr_mbuf *m, struct lr_net_hdrs *h, uint16_t *type)
{
	uint8_t buf[2];
	const uint8_t *p;
	uint32_t off = 12;

	for (unsigned tags = 0;; tags++) {
		p = lr_pktmbuf_read(m, off, 2, buf);
		if (p == NULL)
			return -EINVAL;
		*type = be16(p);
		if (*type != LR_NET_ETHER_TYPE_VLAN &&
		    *type != LR_NET_ETHER_TYPE_QINQ)
			break;
		if (tags == LR_NET_VLAN_MAX)
			return -EPROTONOSUPPORT;
		off += 4;
	}
	h->l2_len = (uint16_t)(off + 2);
	return 0;
}

static int
parse_ipv4(const struct lr_mbuf *m, struct lr_net_hdrs *h)
{
	uint8_t buf[20];
	const uint8_t *p = lr_pktmbuf_read(m, h->l2_len, 20, buf);
	uint32_t ihl, total;

	if (p == NULL || (p[0] >> 4) != 4)
		return -EINVAL;
	ihl = (uint32_t)(p[0] & 0xf) * 4;
	total = be16(p + 2);
	if (ihl < 20 || total < ihl || (uint32_t)h->l2_len + total > m->pkt_len)
		return -EINVAL;
	h->ip_version = 4;
	h->l3_len = (uint16_t)ihl;
	h->l4_proto = p[9];
	h->l3_end = h->l2_len + total;
	if (be16(p + 6) & 0x3fff) /* MF or a fragment offset */
		return -EPROTONOSUPPORT;
	return 0;
}

static int
parse_ipv6(const struct lr_mbuf *m, struct lr_net_hdrs *h)
{
	uint8_t buf[40];
	const uint8_t *p = lr_pktmbuf_read(m, h->l2_len, 40, buf);
	uint32_t len = 40, end;
	uint8_t next;

	if (p == NULL || (p[0] >> 4) != 6)
		return -EINVAL;
	end = (uint32_t)h->l2_len + 40 + be16(p + 4);
	if (end > m->pkt_len)
		return -EINVAL;
	h->ip_version = 6;
	h->l3_end = end;
	next = p[6];
	for (unsigned i = 0; i <= IPV6_EXT_MAX; i++) {
		h->l3_len = (uint16_t)len;
		h->l4_proto = next;
		if (next == IPV6_FRAGMENT)
			return -EPROTONOSUPPORT;
		if (next != IPV6_HOPOPTS && next != IPV6_ROUTING &&
		    next != IPV6_AH && next != IPV6_DSTOPTS)
			return 0;
		if (h->l2_len + len + 8 > end)
			return -EINVAL;
		p = lr_pktmbuf_read(m, h->l2_len + len, 2, buf);
		len += next == IPV6_AH ? ((uint32_t)p[1] + 2) * 4
				       : ((uint32_t)p[1] + 1) * 8;
		next = p[0];
	}
	return -EPROTONOSUPPORT;
}

static int
parse_l4(const struct lr_mbuf *m, struct lr_net_hdrs *h)
{
	uint32_t off = (uint32_t)h->l2_len + h->l3_len;
	uint8_t buf[20];
	const uint8_t *p;

	if (h->l4_proto == LR_NET_PROTO_UDP) {
		if (off + 8 > h->l3_end)
			return -EINVAL;
		h->l4_len = 8;
		return 0;
	}
	if (h->l4_proto != LR_NET_PROTO_TCP)
		return -EPROTONOSUPPORT;
	if (off + 20 > h->l3_end)
		return -EINVAL;
	p = lr_pktmbuf_read(m, off, 20, buf);
	h->l4_len = (uint16_t)((p[12] >> 4) * 4);
	if (h->l4_len < 20 || off + h->l4_len > h->l3_end)
		return -EINVAL;
	return 0;
}

int
lr_net_parse(const struct lr_mbuf *m, struct lr_net_hdrs *h)
{
	uint16_t type;
	int ret;

	memset(h, 0, sizeof(*h));
	ret = parse_l2(m, h, &type);
	if (ret < 0)
		return ret;
	if (type == LR_NET_ETHER_TYPE_IPV4)
		ret = parse_ipv4(m, h);
	else if (type == LR_NET_ETHER_TYPE_IPV6)
		ret = parse_ipv6(m, h);
	else
		ret = -EPROTONOSUPPORT;
	if (ret < 0)
		return ret;
	return parse_l4(m, h);
}
