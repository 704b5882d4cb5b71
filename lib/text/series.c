/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Parsing a port-series selection (series.h), text only; lib/sim samples
 * the ports it names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/failure.h"
#include "text/series.h"
#include "text/text.h"

#define fail uet_text_fail
#define SHOWN UET_SHOWN

static int
parse_item(char *tok, struct sim_series_item *it, char *err, size_t n)
{
	char *colon = strchr(tok, ':');
	struct sim_failure f;
	uint8_t cls;

	memset(it, 0, sizeof(*it));
	snprintf(it->text, sizeof(it->text), "%s", tok);
	it->dir = SIM_DIR_UP;
	if (colon != NULL) {
		*colon = '\0';
		if (strcmp(colon + 1, "up") == 0)
			it->dir = SIM_DIR_UP;
		else if (strcmp(colon + 1, "down") == 0)
			it->dir = SIM_DIR_DOWN;
		else if (strcmp(colon + 1, "both") == 0)
			it->dir = SIM_DIR_BOTH;
		else
			return fail(err, n, "'%s': the direction is up, down or both",
				    SHOWN(colon + 1));
	}
	if (strchr(tok, '.') == NULL && strncmp(tok, "host", 4) != 0) {
		if (sim_failure_parse_class(tok, &cls, err, n) != 0)
			return -1;
		it->is_class = true;
		it->cls = cls;
		return 0;
	}
	if (strcmp(tok, "host") == 0) {
		it->is_class = true;
		it->cls = SIM_CLASS_HOST;
		return 0;
	}
	memset(&f, 0, sizeof(f));
	if (sim_failure_parse_link(tok, &f, err, n) != 0)
		return -1;
	it->node_kind = f.node_kind;
	it->node = f.node;
	it->uplink = f.uplink;
	return 0;
}

int
sim_series_parse(const char *list, struct sim_series_sel *sel, char *err, size_t errlen)
{
	char buf[1024], *save = NULL, *tok;

	memset(sel, 0, sizeof(*sel));
	if (strlen(list) >= sizeof(buf))
		return fail(err, errlen, "longer than %zu characters", sizeof(buf) - 1);
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		if (sel->n == SIM_SERIES_MAX_ITEMS)
			return fail(err, errlen, "more than %u items", SIM_SERIES_MAX_ITEMS);
		if (parse_item(tok, &sel->items[sel->n], err, errlen) != 0)
			return -1;
		sel->n++;
	}
	if (sel->n == 0)
		return fail(err, errlen, "no port named (e.g. tor0.up1, tor-up:both)");
	return 0;
}
