/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lr_devargs.h - the device argument string of a virtual port, as given to
 * --vdev or lr_eth_dev_create(): `name[,key=value]...`, for example
 * `net_null0,size=64,copy=1`. The name is the port's name; the pairs are the
 * driver's settings. Keys may repeat (a driver reads every value of a key
 * with lr_devargs_count()/lr_devargs_get_nth()).
 *
 * Grammar: name is 1..LR_DEVARGS_NAME_MAX-1 characters from [A-Za-z0-9_.:-];
 * a key is 1+ characters from [A-Za-z0-9_-], not starting with
 * '-'; a value is any run of characters
 * other than ',' (it may be empty), or, when it starts with '[', every
 * character up to the matching ']' (brackets inside nest), commas
 * included, and the brackets are dropped: `dev=[net_null0,size=128]` is
 * the value `net_null0,size=128`; the ']' must end the string or be
 * followed by ','. Whitespace is not special.
 *
 * Error model: lr_devargs_parse() and the typed getters return 0 or a
 * negative errno (-EINVAL for bad text, -ENOSPC for too many pairs, -ENOENT
 * when a getter's key is absent and it has no default) after logging one
 * line that names the port, the key and the value:
 * `net_null0: size: bad value 'x' (expected an integer in 1..9600)`.
 *
 * Threading: a struct lr_devargs belongs to its caller; nothing is shared.
 * Cost: parsing is for slow paths only.
 */
#ifndef LR_DEVARGS_H
#define LR_DEVARGS_H

#include <stdint.h>

#include "lr_common.h"

LR_BEGIN_DECLS

/** Longest port name plus its NUL. */
#define LR_DEVARGS_NAME_MAX 64
/** Most key=value pairs in one string. */
#define LR_DEVARGS_MAX_PAIRS 32
/** Longest whole devargs string plus its NUL. */
#define LR_DEVARGS_MAX_LEN 1024

/** One key=value pair; both point into the owning struct's buffer. */
struct lr_devargs_pair {
	const char *key;
	const char *value;
};

/** A parsed devargs string (self-contained, no heap memory). */
struct lr_devargs {
	char name[LR_DEVARGS_NAME_MAX]; /**< port name, e.g. net_null0 */
	unsigned count;			/**< pairs used */
	struct lr_devargs_pair pairs[LR_DEVARGS_MAX_PAIRS];
	char buf[LR_DEVARGS_MAX_LEN]; /**< storage for keys and values */
};

/** Parse str into da; 0 or -EINVAL/-ENOSPC/-ENAMETOOLONG after logging. */
int lr_devargs_parse(struct lr_devargs *da, const char *str);

/** lr_devargs_parse() where a key of the NULL-terminated list flags (may
 *  be NULL) may also be given bare, as DPDK's kvargs take it: `persist`
 *  reads as `persist=1`. */
int lr_devargs_parse_flags(struct lr_devargs *da, const char *str,
			   const char *const *flags);

/** 0 if every key of da is in the NULL-terminated list valid, else -EINVAL
 *  after logging the first unknown key with its value and the valid keys. */
int lr_devargs_check_keys(const struct lr_devargs *da,
			  const char *const *valid);

/** How many pairs have this key. */
unsigned lr_devargs_count(const struct lr_devargs *da, const char *key);

/** Value of the n-th pair (from 0) with this key, or NULL. */
const char *lr_devargs_get_nth(const struct lr_devargs *da, const char *key,
			       unsigned n);

/** Value of the first pair with this key, or NULL. */
const char *lr_devargs_get(const struct lr_devargs *da, const char *key);

/** Read key as an unsigned integer (decimal, 0x hex) in min..max into *out;
 *  *out = def when absent. 0 or -EINVAL (logged, naming the value). */
int lr_devargs_get_uint(const struct lr_devargs *da, const char *key,
			uint64_t def, uint64_t min, uint64_t max,
			uint64_t *out);

/** Read key as a boolean (0/1, yes/no, true/false, on/off) into *out;
 *  *out = def when absent. 0 or -EINVAL (logged). */
int lr_devargs_get_bool(const struct lr_devargs *da, const char *key, int def,
			int *out);

/** Read key as file permission bits, in octal 0..0777 (0600, 660) into
 *  *out; *out = def when absent. 0 or -EINVAL (logged, naming the value). */
int lr_devargs_get_mode(const struct lr_devargs *da, const char *key,
			unsigned def, unsigned *out);

LR_END_DECLS

#endif /* LR_DEVARGS_H */
