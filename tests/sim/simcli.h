/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef UET_TESTS_SIMCLI_H_
#define UET_TESTS_SIMCLI_H_

/*
 * uet-sim's command line run in-process (lib/simrun), for tests that
 * assert on a whole scenario: fixed arguments, then a NULL-ended list.
 * Include after <cmocka.h>.
 */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simrun/simrun.h"

#define SIMCLI_MAX_ARGS 48

struct simcli {
	struct uet_perf_opts *opts;
	struct uet_simrun_result r;
	char line[1024];         /* the command line, for messages */
};

/* Parse "uet-sim" + base[0..nbase) + the va_list's arguments and run it;
 * a parse or run error fails the test, naming the command line. */
static inline void
simcli_run(struct simcli *c, const char *const *base, size_t nbase, va_list ap)
{
	char *argv[SIMCLI_MAX_ARGS] = { "uet-sim" }, err[512];
	int argc = 1;
	size_t i;

	memset(c, 0, sizeof(*c));
	c->opts = calloc(1, sizeof(*c->opts));
	assert_non_null(c->opts);
	strcpy(c->line, "uet-sim");
	for (i = 0; i < nbase; i++) {
		assert_true(argc + 1 < SIMCLI_MAX_ARGS);
		argv[argc++] = (char *)base[i];
	}
	while ((argv[argc] = va_arg(ap, char *)) != NULL) {
		snprintf(c->line + strlen(c->line), sizeof(c->line) - strlen(c->line), " %s",
			 argv[argc]);
		argc++;
		assert_true(argc < SIMCLI_MAX_ARGS);
	}
	uet_conf_set_app(UET_CONF_APP_SIM);
	if (uet_perf_opts_parse(c->opts, argc, argv, err, sizeof(err)) != UET_CONF_OK)
		fail_msg("%s: %s", c->line, err);
	if (uet_simrun(c->opts, c->opts->size_bytes, NULL, NULL, &c->r) != 0)
		fail_msg("%s: %s", c->line, c->r.error);
}

static inline void
simcli_done(struct simcli *c)
{
	uet_simrun_result_free(&c->r);
	uet_conf_set_app(UET_CONF_APP_PERF);
	free(c->opts);
}

#endif
