/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "uet/lb.h"

static const struct uet_lb_ops *const registry[] = {
	&uet_lb_ecmp,
	&uet_lb_ops_spray,
	&uet_lb_bitmap,
	&uet_lb_reps,
	&uet_lb_flowlet,
	&uet_lb_plb,
	&uet_lb_strack,
	&uet_lb_mprdma,
	&uet_lb_mptcp,
	&uet_lb_ar,
	NULL,
};

const struct uet_lb_ops *
uet_lb_find(const char *name)
{
	size_t i;

	for (i = 0; registry[i] != NULL; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

const struct uet_lb_ops *const *
uet_lb_all(void)
{
	return registry;
}
