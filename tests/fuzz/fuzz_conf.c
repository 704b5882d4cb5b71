/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: uet-perf's and uet-sim's command line (lib/conf). The
 * input's first byte picks the program (bit 0: uet-sim), the rest is its
 * arguments, one per line. Bad input must be refused with a message, never
 * crash; and what parses must survive the trip through an INI file: the
 * options written (uet_perf_opts_write_ini), loaded back with --config and
 * written again give the same file and the same options hash.
 *
 * Arguments naming a path are skipped, so the target reads no file but its
 * own INI (--config /dev/zero would read forever, as it would for a user).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conf/conf.h"

#define FZ_MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char ini_path[64];

static void
ini_remove(void)
{
	unlink(ini_path);
}

/* o as an INI file at ini_path, and its text in out. */
static void
ini_text(const struct uet_perf_opts *o, char *out, size_t cap)
{
	FILE *f = fopen(ini_path, "w");
	size_t n;

	if (f == NULL)
		abort();
	uet_perf_opts_write_ini(o, f);
	fclose(f);
	f = fopen(ini_path, "r");
	if (f == NULL)
		abort();
	n = fread(out, 1, cap - 1, f);
	fclose(f);
	out[n] = 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char args[8192], t1[1 << 16], t2[1 << 16];
	struct uet_perf_opts *o = NULL, *o2 = NULL;
	char *argv[FZ_MAX_ARGS + 2], *p;
	char err[512];
	int argc = 1;

	if (size < 1 || size > sizeof(args))
		return 0;
	if (ini_path[0] == 0) {
		snprintf(ini_path, sizeof(ini_path), "/tmp/uet-fuzz-conf-%d.ini", (int)getpid());
		/* libFuzzer may stop between writing the file and removing it. */
		atexit(ini_remove);
	}
	memcpy(args, data + 1, size - 1);
	args[size - 1] = 0;
	argv[0] = (data[0] & 1) ? "uet-sim" : "uet-perf";
	for (p = args; *p != 0 && argc <= FZ_MAX_ARGS;) {
		char *nl = strchr(p, '\n');

		if (nl != NULL)
			*nl = 0;
		if (strchr(p, '/') != NULL)
			return 0;
		argv[argc++] = p;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	argv[argc] = NULL;
	uet_conf_set_app((data[0] & 1) ? UET_CONF_APP_SIM : UET_CONF_APP_PERF);
	o = malloc(sizeof(*o));
	o2 = malloc(sizeof(*o2));
	if (o == NULL || o2 == NULL)
		abort();
	if (uet_perf_opts_parse(o, argc, argv, err, sizeof(err)) == UET_CONF_OK) {
		char *again[] = { argv[0], "--config", ini_path, NULL };

		ini_text(o, t1, sizeof(t1));
		/* A value INI cannot hold (both quote kinds) is left out, and
		 * the file says so: then the trip cannot be exact. */
		if (strstr(t1, "not written") == NULL) {
			if (uet_perf_opts_parse(o2, 3, again, err, sizeof(err)) != UET_CONF_OK) {
				fprintf(stderr, "the written INI does not load: %s\n%s", err, t1);
				abort();
			}
			ini_text(o2, t2, sizeof(t2));
			if (strcmp(t1, t2) != 0 || uet_perf_opts_hash(o) != uet_perf_opts_hash(o2)) {
				fprintf(stderr, "INI round trip differs:\n%s---\n%s", t1, t2);
				abort();
			}
		}
		unlink(ini_path);
	}
	free(o);
	free(o2);
	return 0;
}
