/* SPDX-License-Identifier: BSD-3-Clause */
/* lib/workload: htsim connection-matrix (.cm) files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "uet/err.h"
#include "workload/workload.h"

static char errbuf[1024];

static const char *
data_path(const char *name)
{
	static char path[1024];
	const char *dir = getenv("UET_TEST_DATA");

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/data", name);
	return path;
}

static int
load(const char *path, uint64_t size_bytes, struct uet_wl **wl)
{
	struct uet_wl_spec s = { .pattern = UET_WL_CM, .cm_path = path,
				 .size_bytes = size_bytes };

	errbuf[0] = '\0';
	return uet_wl_build(&s, wl, errbuf, sizeof(errbuf));
}

/* A temporary .cm file with `text`; the caller unlinks it. */
static void
write_tmp(char *path, size_t len, const char *text)
{
	FILE *f;
	int fd;

	snprintf(path, len, "/tmp/uet_wl_cm_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Load `text` through a temporary file (its name left in path for the
 * error's prefix), then remove the file. */
static int
load_text(char *path, size_t len, const char *text, uint64_t size_bytes, struct uet_wl **wl)
{
	int rc;

	write_tmp(path, len, text);
	rc = load(path, size_bytes, wl);
	unlink(path);
	return rc;
}

static void
expect_dep(const struct uet_wl *wl, uint32_t flow, uint32_t k, uint32_t on_flow,
	   enum uet_wl_on on)
{
	const struct uet_wl_dep *d = &wl->deps[wl->flows[flow].dep_first + k];

	assert_true(k < wl->flows[flow].ndeps);
	assert_int_equal(d->flow, on_flow);
	assert_int_equal(d->on, on);
}

static void
test_sample(void **state)
{
	static const struct {
		uint32_t src, dst, size, tag;
		uint64_t start_ns;
		uint32_t ndeps, need;
	} want[9] = {
		{ 0, 1, 1000, 1, 0, 0, 0 },	{ 1, 2, 2000, 2, 2500, 0, 0 },
		{ 0, 2, 3000, 3, 0, 1, 1 },	{ 0, 3, 4444, 4, 0, 1, 1 },
		{ 2, 3, 5000, 5, 0, 2, 1 },	{ 2, 0, 6000, 6, 0, 2, 2 },
		{ 2, 1, 7000, 7, 10000, 0, 0 }, { 3, 0, 8000, 0, 1, 0, 0 },
		{ 2, 1, 9000, 9, 0, 2, 2 },
	};
	const char *path = data_path("wl_triggers.cm");
	struct uet_wl *wl = NULL;
	char line[1100];
	uint32_t i;

	(void)state;
	assert_int_equal(load(path, 4444, &wl), 0);
	assert_int_equal(wl->pattern, UET_WL_CM);
	assert_int_equal(wl->hosts, 4);
	assert_int_equal(wl->nflows, 9);
	assert_int_equal(wl->coll_bytes, 0);
	for (i = 0; i < 9; i++) {
		const struct uet_wl_flow *f = &wl->flows[i];

		assert_int_equal(f->src, want[i].src);
		assert_int_equal(f->dst, want[i].dst);
		assert_int_equal(f->size_bytes, want[i].size);
		assert_int_equal(f->tag, want[i].tag);
		assert_int_equal(f->start_ns, want[i].start_ns);
		assert_int_equal(f->ndeps, want[i].ndeps);
		assert_int_equal(f->deps_needed, want[i].need);
	}
	/* oneshot 1: send-done of line 7's flow */
	expect_dep(wl, 2, 0, 0, UET_WL_ON_SEND_DONE);
	expect_dep(wl, 3, 0, 0, UET_WL_ON_SEND_DONE);
	/* multishot 2: recv-done of 1->2 and send-done of 2->1 (both at host 2);
	 * its first target needs one of them, the second both. */
	expect_dep(wl, 4, 0, 1, UET_WL_ON_RECV_DONE);
	expect_dep(wl, 4, 1, 6, UET_WL_ON_SEND_DONE);
	expect_dep(wl, 5, 0, 1, UET_WL_ON_RECV_DONE);
	expect_dep(wl, 5, 1, 6, UET_WL_ON_SEND_DONE);
	/* barrier 3, count 2: both send-dones */
	expect_dep(wl, 8, 0, 4, UET_WL_ON_SEND_DONE);
	expect_dep(wl, 8, 1, 5, UET_WL_ON_SEND_DONE);
	/* the failure line is kept, not run */
	assert_int_equal(wl->unsupported, 1);
	snprintf(line, sizeof(line), "%s:19: failure switch_type TOR switch_id 3 link_id 1",
		 path);
	assert_string_equal(wl->unsupported_text[0], line);
	uet_wl_free(wl);
}

/* The sample's triggers through the tracker of host 2 and of host 0. */
static void
test_sample_run(void **state)
{
	bool host2[4] = { false, false, true, false }, host0[4] = { true, false, false, false };
	struct uet_wl *wl = NULL;
	struct uet_wl_run *r;
	uint32_t ids[8];

	(void)state;
	assert_int_equal(load(data_path("wl_triggers.cm"), 4444, &wl), 0);
	assert_int_equal(uet_wl_run_create(wl, host2, &r), 0);
	assert_int_equal(uet_wl_run_ready(r, 0, ids, 8), 0);
	assert_int_equal(uet_wl_run_next_ns(r), 10000); /* 2->1 at 10 us */
	/* first multishot activation (1->2 received) starts the first target */
	assert_int_equal(uet_wl_run_recv_done(r, 1, 5000), 0);
	assert_int_equal(uet_wl_run_ready(r, 5000, ids, 8), 1);
	assert_int_equal(ids[0], 4);
	assert_int_equal(uet_wl_run_ready(r, 10000, ids, 8), 1);
	assert_int_equal(ids[0], 6);
	/* second activation starts the second */
	assert_int_equal(uet_wl_run_send_done(r, 6, 11000), 0);
	assert_int_equal(uet_wl_run_ready(r, 11000, ids, 8), 1);
	assert_int_equal(ids[0], 5);
	/* barrier of 2 */
	assert_int_equal(uet_wl_run_send_done(r, 4, 12000), 0);
	assert_int_equal(uet_wl_run_ready(r, 12000, ids, 8), 0);
	assert_int_equal(uet_wl_run_send_done(r, 5, 13000), 0);
	assert_int_equal(uet_wl_run_ready(r, 13000, ids, 8), 1);
	assert_int_equal(ids[0], 8);
	assert_int_equal(uet_wl_run_send_done(r, 8, 14000), 0);
	assert_false(uet_wl_run_done(r)); /* 0->2 not received yet */
	assert_int_equal(uet_wl_run_recv_done(r, 2, 15000), 0);
	assert_true(uet_wl_run_done(r));
	uet_wl_run_free(r);

	assert_int_equal(uet_wl_run_create(wl, host0, &r), 0);
	assert_int_equal(uet_wl_run_ready(r, 0, ids, 8), 1);
	assert_int_equal(ids[0], 0);
	assert_int_equal(uet_wl_run_send_done(r, 0, 100), 0); /* oneshot 1 fires */
	assert_int_equal(uet_wl_run_ready(r, 100, ids, 8), 2);
	assert_int_equal(ids[0], 2);
	assert_int_equal(ids[1], 3);
	uet_wl_run_free(r);
	uet_wl_free(wl);
}

/* htsim's own output style: fractional start, size 0 = default size. */
static void
test_permutation_file(void **state)
{
	struct uet_wl *wl = NULL;
	uint32_t i;

	(void)state;
	assert_int_equal(load(data_path("wl_perm4.cm"), 100, &wl), 0);
	assert_int_equal(wl->nflows, 4);
	assert_int_equal(wl->unsupported, 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(wl->flows[i].src, i);
		assert_int_equal(wl->flows[i].dst, (i + 2) % 4);
		assert_int_equal(wl->flows[i].size_bytes, 100);
		assert_int_equal(wl->flows[i].ndeps, 0);
	}
	uet_wl_free(wl);
	assert_int_equal(load(data_path("wl_perm4.cm"), 0, &wl), UET_ERR_INVAL);
	assert_null(wl);
	assert_non_null(strstr(errbuf, "wl_perm4.cm:3: 'size 0'"));
}

static void
test_crlf_comments(void **state)
{
	char path[64];
	struct uet_wl *wl = NULL;

	(void)state;
	assert_int_equal(load_text(path, sizeof(path),
				   "# comment\r\n\r\nNodes\t3\r\nConnections 2\r\n  # indented "
				   "comment\r\n0->1\tstart 1.5 size 7\r\n 2->0 start 0 size 9 id 4\r\n",
				   0, &wl),
			 0);
	assert_int_equal(wl->hosts, 3);
	assert_int_equal(wl->nflows, 2);
	assert_int_equal(wl->flows[0].start_ns, 1500);
	assert_int_equal(wl->flows[1].tag, 4);
	assert_int_equal(wl->flows[1].size_bytes, 9);
	uet_wl_free(wl);
}

static const struct {
	const char *text;
	uint32_t line; /* 0: the error names the file only */
	const char *needle;
} bad[] = {
	{ "Nodes 4\nConnections 1\n0->1 start 0 size 10 foo 3\n", 3, "unknown keyword 'foo'" },
	{ "Nodes 4\nConnections 1\n0->1 start 0\n", 3, "expected 'size <bytes>'" },
	{ "Nodes 4\nConnections 1\n0->1 start 0 size\n", 3, "expected bytes" },
	{ "Nodes 4\nConnections 1\na->1 start 0 size 1\n", 3, "decimal ranks" },
	{ "Nodes 4\nConnections 1\n0->4 start 0 size 1\n", 3, "out of range (Nodes 4)" },
	{ "Nodes 4\nConnections 1\n2->2 start 0 size 1\n", 3, "same host" },
	{ "Nodes 4\nConnections 1\n0->1 start -1 size 1\n", 3, "'start -1'" },
	{ "Nodes 4\nConnections 1\n0->1 size 1\n", 3, "expected 'start <us>' or 'trigger" },
	{ "Nodes 4\nConnections 1\nTriggers 1\n0->1 start 0 trigger 1 size 1\n"
	  "trigger id 1 oneshot\n", 4, "both 'start' and 'trigger'" },
	{ "Nodes 4\nConnections 2\n0->1 start 0 size 1 send_done_trigger 5\n"
	  "0->2 trigger 5 size 1\n", 3, "trigger 5 has no 'trigger id 5" },
	/* send-done at host 0 cannot start a flow from host 2 */
	{ "Nodes 4\nConnections 2\nTriggers 1\n0->1 start 0 size 1 send_done_trigger 1\n"
	  "2->3 trigger 1 size 1\ntrigger id 1 oneshot\n", 5, "may only start flows" },
	/* recv-done happens at host 1, not at the target's source 0 */
	{ "Nodes 4\nConnections 2\nTriggers 1\n0->1 start 0 size 1 recv_done_trigger 1\n"
	  "0->3 trigger 1 size 1\ntrigger id 1 oneshot\n", 5, "seen at host 1" },
	{ "Nodes 4\nConnections 3\n0->1 start 0 size 1\n", 2,
	  "Connections 3 but the file has 1" },
	{ "Nodes 4\nConnections 1\nFailures 2\n0->1 start 0 size 1\nfailure x\n", 3,
	  "Failures 2 but the file has 1" },
	{ "Nodes 4\nConnections 1\nTriggers 2\n0->1 start 0 size 1\ntrigger id 1 oneshot\n", 3,
	  "Triggers 2 but the file has 1" },
	{ "Nodes 4\nConnections 3\nTriggers 1\n0->1 start 0 size 1 send_done_trigger 1\n"
	  "0->2 start 0 size 1 send_done_trigger 1\n0->3 trigger 1 size 1\n"
	  "trigger id 1 oneshot\n", 7, "activated 2 times (lines 4 and 5)" },
	{ "Nodes 4\nConnections 3\nTriggers 1\n0->1 start 0 size 1 send_done_trigger 1\n"
	  "0->2 trigger 1 size 1\n0->3 trigger 1 size 1\ntrigger id 1 multishot\n", 7,
	  "starts 2 flows but is activated only 1 times" },
	{ "Nodes 4\nConnections 2\nTriggers 1\n0->1 start 0 size 1 send_done_trigger 1\n"
	  "0->2 trigger 1 size 1\ntrigger id 1 barrier count 2\n", 6, "never fires" },
	{ "Nodes 4\nConnections 2\nTriggers 1\n0->1 start 0 size 1\n0->2 trigger 1 size 1\n"
	  "trigger id 1 oneshot\n", 6, "no send_done_trigger/recv_done_trigger 1" },
	/* 0->2 and 0->3 wait on each other */
	{ "Nodes 4\nConnections 3\nTriggers 2\n0->1 start 0 size 1\n"
	  "0->2 trigger 1 size 1 send_done_trigger 2\n"
	  "0->3 trigger 2 size 1 send_done_trigger 1\n"
	  "trigger id 1 oneshot\ntrigger id 2 oneshot\n", 5, "can never start" },
	{ "Nodes 4\nConnections 1\nTriggers 2\n0->1 start 0 size 1\ntrigger id 1 oneshot\n"
	  "trigger id 1 multishot\n", 6, "trigger 1 defined again (first at line 5)" },
	{ "Nodes 4\nConnections 1\nTriggers 1\n0->1 start 0 size 1\ntrigger id 1\n", 5,
	  "expected a trigger type" },
	{ "Nodes 4\nConnections 1\nTriggers 1\n0->1 start 0 size 1\ntrigger id 1 barrier\n", 5,
	  "expected 'count <n>'" },
	{ "Nodes 4\nConnections 2\n0->1 id 3 start 0 size 1\n1->2 id 3 start 0 size 1\n", 4,
	  "id 3 already used at line 3" },
	{ "Nodes 4\n0->1 start 0 size 1\nConnections 1\n", 3, "after the first connection" },
	{ "Nodes 4\nNodes 4\n", 2, "given twice (first at line 1)" },
	{ "Nodes 4\nConnections 0\nfoo bar\n", 3, "unknown keyword 'foo'" },
	{ "Nodes 1\nConnections 0\n", 1, "Nodes 1 not in [2," },
	{ "Nodes x\n", 1, "'Nodes x': expected an integer" },
	{ "Connections 0\n", 0, "no 'Nodes <count>' line" },
	{ "Nodes 4\nConnections 0\n", 0, "no connections" },
	{ "Nodes 4\nConnections 1\n0->1 start 0 size 1 id 0\n", 3, "'id 0'" },
};

static void
test_malformed(void **state)
{
	char path[64], prefix[128];
	uint32_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct uet_wl *wl = (struct uet_wl *)1;
		int rc;

		rc = load_text(path, sizeof(path), bad[i].text, 0, &wl);
		if (bad[i].line)
			snprintf(prefix, sizeof(prefix), "%s:%u: ", path, bad[i].line);
		else
			snprintf(prefix, sizeof(prefix), "%s: ", path);
		if (rc != UET_ERR_INVAL || strncmp(errbuf, prefix, strlen(prefix)) != 0 ||
		    strstr(errbuf, bad[i].needle) == NULL)
			print_error("case %u: rc %d, error '%s', want '%s...%s'\n", i, rc, errbuf,
				    prefix, bad[i].needle);
		assert_int_equal(rc, UET_ERR_INVAL);
		assert_null(wl);
		assert_memory_equal(errbuf, prefix, strlen(prefix));
		assert_non_null(strstr(errbuf, bad[i].needle));
	}
}

static void
test_file_errors(void **state)
{
	struct uet_wl_spec s = { .pattern = UET_WL_CM, .cm_path = data_path("wl_perm4.cm"),
				 .size_bytes = 1, .hosts = 8 };
	struct uet_wl *wl = NULL;
	char path[64], *big;

	(void)state;
	assert_int_equal(load("/nonexistent/x.cm", 1, &wl), UET_ERR_INVAL);
	assert_non_null(strstr(errbuf, "/nonexistent/x.cm: cannot open"));
	/* spec->hosts must match Nodes */
	assert_int_equal(uet_wl_build(&s, &wl, errbuf, sizeof(errbuf)), UET_ERR_INVAL);
	assert_non_null(strstr(errbuf, "wl_perm4.cm:1: Nodes 4 but hosts is 8"));
	s.hosts = 4;
	assert_int_equal(uet_wl_build(&s, &wl, errbuf, sizeof(errbuf)), 0);
	uet_wl_free(wl);
	s.streams = 2;
	assert_int_equal(uet_wl_build(&s, &wl, errbuf, sizeof(errbuf)), UET_ERR_INVAL);
	assert_non_null(strstr(errbuf, "streams"));

	/* a line over the limit */
	big = malloc(UET_WL_CM_MAX_LINE + 64);
	assert_non_null(big);
	strcpy(big, "Nodes 4\nConnections 1\n0->1 start 0 size 1");
	memset(big + strlen(big), ' ', UET_WL_CM_MAX_LINE);
	strcpy(big + strlen("Nodes 4\nConnections 1\n0->1 start 0 size 1") + UET_WL_CM_MAX_LINE,
	       "\n");
	assert_int_equal(load_text(path, sizeof(path), big, 1, &wl), UET_ERR_INVAL);
	free(big);
	assert_non_null(strstr(errbuf, ":3: line longer than"));
}

/* htsim makes every line its own connection: the n-th line of a pair is
 * stream n (its own PDC), other pairs count from 0. */
static void
test_lines_own_pdcs(void **state)
{
	static const uint16_t want[] = { 0, 1, 0, 2, 0 };
	char path[64];
	struct uet_wl *wl = NULL;
	uint32_t out[3] = { 0 }, in[3] = { 0 }, fout[3] = { 0 }, fin[3] = { 0 }, i;
	FILE *f;

	(void)state;
	assert_int_equal(load_text(path, sizeof(path),
				   "Nodes 3\nConnections 5\n0->1 start 0 size 10\n0->1 start 1 size "
				   "10\n1->0 start 0 size 10\n0->1 start 2 size 10\n0->2 start 0 size "
				   "10\n",
				   0, &wl),
			 0);
	assert_int_equal(wl->nflows, 5);
	for (i = 0; i < 5; i++)
		assert_int_equal(wl->flows[i].stream, want[i]);
	assert_int_equal(uet_wl_count_pdcs(wl, out, in, fout, fin), 0);
	assert_int_equal(out[0], 4); /* three PDCs to host 1, one to host 2 */
	assert_int_equal(in[1], 3);
	assert_int_equal(fout[0], 4);
	uet_wl_free(wl);

	/* Stream ids are 16 bits: a pair's 65,537th line is an error. */
	write_tmp(path, sizeof(path), "Nodes 2\nConnections 65537\n");
	f = fopen(path, "a");
	assert_non_null(f);
	for (i = 0; i < 65537; i++)
		fputs("0->1 start 0 size 1\n", f);
	assert_int_equal(fclose(f), 0);
	wl = NULL;
	assert_int_equal(load(path, 0, &wl), UET_ERR_INVAL);
	unlink(path);
	assert_null(wl);
	assert_non_null(strstr(errbuf, ":65539: more than 65536 connections from 0 to 1"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_sample_run),
		cmocka_unit_test(test_permutation_file),
		cmocka_unit_test(test_crlf_comments),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_lines_own_pdcs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
