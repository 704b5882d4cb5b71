/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: what uet-perf's control channel reads from a
 * connection before it trusts it, and the stop notices after. The input's
 * first byte picks the reader, the rest is the message as it came:
 *
 *   0, 1: rank 0's reading of a join (length and text as framed on the
 *         wire), with and without a key, into a run of 4 with rank 1
 *         taken: refused or given a rank, never more;
 *   2:    a peer's reading of rank 0's challenge;
 *   3:    a peer's reading of a welcome, with a key;
 *   4:    a stop notice;
 *   5:    a key in hex (a key file's or UET_PERF_AUTH_KEY's text).
 *
 * The channel's functions are static: the target includes ctrl.c.
 */
#include "ctrl.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t NC[NONCE_BYTES] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
static const uint8_t NP[NONCE_BYTES] = { 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2 };

static void
keyed_opts(struct ctrl_opts *o)
{
	char err[256];

	memset(o, 0, sizeof(*o));
	if (ctrl_key_hex("00112233445566778899aabbccddeeff", o, err, sizeof(err)) != 0)
		abort();
}

/* Rank 0 reads msg (framed) from a fresh connection of a run of 4. */
static void
join(const struct ctrl_opts *o, const uint8_t *msg, size_t len)
{
	int fds[4] = { -1, 100, -1, -1 }, sv[2], r;
	struct ctrl c = { .rank = 0, .nranks = 4, .fds = fds, .lfd = -1 };
	struct pending p;

	if (len > sizeof(p.buf) || socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return;
	memset(&p, 0, sizeof(p));
	p.fd = sv[0];
	memcpy(p.nonce, NC, NONCE_BYTES);
	memcpy(p.buf, msg, len);
	p.got = (uint32_t)len;
	if (len >= 4) {
		uint32_t n;

		memcpy(&n, msg, 4);
		n = ntohl(n);
		if (n <= JOIN_MAX_BYTES && 4 + n <= len) {
			r = join_one(&c, o, &p, n);
			/* given a rank: one of the free ones, the fd kept */
			if (r == 1) {
				uint32_t k, held = 0;

				for (k = 2; k < 4; k++)
					if (fds[k] == sv[0])
						held++;
				if (held != 1)
					abort();
				close(sv[0]);
			}
			close(sv[1]);
			return;
		}
	}
	close(sv[0]);
	close(sv[1]);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctrl_opts o;
	json_error_t je;
	json_t *j;
	uint8_t nc[NONCE_BYTES];
	uint32_t rank = 0, nranks = 0;
	int auth, from;
	bool lost;
	char *text;

	if (size < 1)
		return 0;
	keyed_opts(&o);
	switch (data[0] % 6) {
	case 0:
		join(&o, data + 1, size - 1);
		break;
	case 1:
		memset(&o, 0, sizeof(o));
		join(&o, data + 1, size - 1);
		break;
	case 2:
		j = json_loadb((const char *)data + 1, size - 1, 0, &je);
		(void)challenge_parse(j, nc, &auth);
		json_decref(j);
		break;
	case 3:
		j = json_loadb((const char *)data + 1, size - 1, 0, &je);
		if (welcome_parse(&o, j, NC, NP, UINT32_MAX, &rank, &nranks) == 0 &&
		    (nranks < 2 || rank == 0 || rank >= nranks))
			abort();
		json_decref(j);
		break;
	case 4:
		j = json_loadb((const char *)data + 1, size - 1, 0, &je);
		(void)is_stop(j, &from, &lost);
		json_decref(j);
		break;
	default:
		text = malloc(size);
		if (text == NULL)
			return 0;
		memcpy(text, data + 1, size - 1);
		text[size - 1] = '\0';
		{
			char err[256];

			if (ctrl_key_hex(text, &o, err, sizeof(err)) == 0 &&
			    (o.key_len < CTRL_KEY_MIN_BYTES || o.key_len > CTRL_KEY_MAX_BYTES))
				abort();
		}
		free(text);
		break;
	}
	return 0;
}
