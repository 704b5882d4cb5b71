/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "uet/cc.h"

static const struct uet_cc_ops *const registry[] = {
	&uet_cc_nscc,
	&uet_cc_dctcp,
	&uet_cc_dctcp_mprdma,
	&uet_cc_strack,
	&uet_cc_fixed,
	&uet_cc_eqds,
	NULL,
};

const struct uet_cc_ops *
uet_cc_find(const char *name)
{
	size_t i;

	for (i = 0; registry[i] != NULL; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

const struct uet_cc_ops *const *
uet_cc_all(void)
{
	return registry;
}
