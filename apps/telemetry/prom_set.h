/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * prom_set.h - the samples of one scrape (private to apps/telemetry; the
 * functions that fill it are declared in tel.h). Error model: tel.h's
 * (0 or a negative errno; -ENOMEM only).
 */
#ifndef PROM_SET_H
#define PROM_SET_H

#include "tel.h"

/** A metric family: name, type (counter, gauge, untyped) and help. */
struct prom_family {
	char name[160];
	char type[8];
	char help[200];
};

/** One sample: its family (an index), labels ("" or {a="x"}), value. */
struct prom_sample {
	size_t fam;
	char *labels;
	char value[40];
};

/** The families in the order of their first sample, and the samples. */
struct prom_set {
	struct prom_family *fam;
	size_t n_fam, cap_fam;
	struct prom_sample *smp;
	size_t n_smp, cap_smp;
	int nomem; /* a prom_add() ran out of memory: the text fails */
};

/** Free what s holds (s itself is the caller's). */
void prom_set_free(struct prom_set *s);

/** The text of s (format 0.0.4) into a malloc'd *text of *len bytes: 0 or
 *  -ENOMEM (also when a sample could not be added). */
int prom_set_text(const struct prom_set *s, char **text, size_t *len);

#endif /* PROM_SET_H */
