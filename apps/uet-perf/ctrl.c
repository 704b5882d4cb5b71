/* SPDX-License-Identifier: BSD-3-Clause */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "ctrl.h"

/* A message longer is refused (a peer confused about the length). The
 * largest is a run's merged measurement: a timeline of up to 2^20 bins (by
 * default; max_bins, report.h) of three counters, about 21 characters a
 * bin at most (merge.c), 1 M FCT samples and the flows. */
#define MAX_MSG_BYTES (256u << 20)
/* A wait looks at the stop flag this often: the signal may be delivered to
 * another thread, and then poll() is never interrupted here. */
#define STOP_CHECK_MS 100

static const volatile int *stop_flag;
static volatile int stop_level = 1;
static volatile int stopped;

void
ctrl_set_stop(const volatile int *stop)
{
	stop_flag = stop;
	stop_level = 1;
	stopped = 0;
}

void
ctrl_set_stop_level(int level)
{
	stop_level = level;
}

bool
ctrl_interrupted(void)
{
	return stopped;
}

struct ctrl {
	uint32_t rank, nranks;
	int *fds; /* rank 0: fds[r] for peer r (fds[0] unused); others: fds[0] */
	int lfd;
	uint32_t timeout_ms; /* of the opening, for its messages */
	/* ctrl_watch: per fd index, something other than a stop notice waits
	 * there (a result sent before this process ended its run, or the
	 * peer's end): leave it to the gather, and look no more. */
	bool *watch_skip;
	struct pollfd *watch_pfd; /* ctrl_watch's poll set, and its fd indices */
	uint32_t *watch_idx;
	struct ctrl_refused refused; /* rank 0, while the ranks joined */
	uint64_t accepted;           /* rank 0: connections taken so far */
};

static uint64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int
left_ms(uint64_t deadline)
{
	uint64_t now = mono_ms();

	return now >= deadline ? 0 : (int)(deadline - now);
}

/* Wait until fd is readable (or writable); 1, 0 on timeout, -1 on error
 * or when the stop flag is raised (SIGINT/SIGTERM: ctrl_interrupted()). */
static int
wait_fd(int fd, short ev, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int rc, left;

	for (;;) {
		if (stop_flag != NULL && *stop_flag >= stop_level) {
			stopped = 1;
			return -1;
		}
		left = left_ms(deadline);
		rc = poll(&p, 1, left < STOP_CHECK_MS ? left : STOP_CHECK_MS);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc != 0 || left <= STOP_CHECK_MS)
			return rc;
	}
}

/* io_all's failures: the deadline passed (or a signal), or the peer's end
 * of the connection is gone (it exited, or was killed). */
#define IO_TIMEOUT (-1)
#define IO_CLOSED (-2)

static int
io_all(int fd, void *buf, size_t n, bool wr, uint64_t deadline)
{
	uint8_t *b = buf;

	while (n > 0) {
		ssize_t k;
		int rc = wait_fd(fd, wr ? POLLOUT : POLLIN, deadline);

		if (rc <= 0)
			return rc < 0 && !stopped ? IO_CLOSED : IO_TIMEOUT;
		k = wr ? send(fd, b, n, MSG_NOSIGNAL) : recv(fd, b, n, 0);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return IO_CLOSED;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* j as it goes on the wire: its length (4 bytes, big endian), then its
 * compact text; malloc'd, NULL when out of memory or longer than max. */
static uint8_t *
frame_msg(const json_t *j, size_t max, size_t *n)
{
	char *s = json_dumps(j, JSON_COMPACT);
	size_t len = s != NULL ? strlen(s) : 0;
	uint8_t *b = s != NULL && len <= max ? malloc(len + 4) : NULL;
	uint32_t be = htonl((uint32_t)len);

	if (b != NULL) {
		memcpy(b, &be, 4);
		memcpy(b + 4, s, len);
		*n = len + 4;
	}
	free(s);
	return b;
}

/* The length and the text in one write: a small message (a stop notice)
 * then arrives whole, for ctrl_watch to see at once. */
static int
send_msg(int fd, json_t *j, uint64_t deadline)
{
	size_t n;
	uint8_t *b = frame_msg(j, MAX_MSG_BYTES, &n);
	int rc;

	if (b == NULL)
		return -1;
	rc = io_all(fd, b, n, true, deadline);
	free(b);
	return rc;
}

/* A message of at most max bytes, or NULL and in *why (when not NULL)
 * IO_TIMEOUT, IO_CLOSED or 0 (a malformed one). */
static json_t *
recv_max(int fd, uint64_t deadline, size_t max, int *why)
{
	json_error_t je;
	uint32_t be, len;
	char *s;
	json_t *j;
	int rc, dummy;

	if (why == NULL)
		why = &dummy;
	*why = 0;
	if ((rc = io_all(fd, &be, 4, false, deadline)) != 0) {
		*why = rc;
		return NULL;
	}
	len = ntohl(be);
	if (len > max)
		return NULL;
	s = malloc(len + 1);
	if (s == NULL)
		return NULL;
	if ((rc = io_all(fd, s, len, false, deadline)) != 0) {
		*why = rc;
		free(s);
		return NULL;
	}
	s[len] = '\0';
	j = json_loads(s, 0, &je);
	free(s);
	return j;
}

static json_t *
recv_msg(int fd, uint64_t deadline, int *why)
{
	return recv_max(fd, deadline, MAX_MSG_BYTES, why);
}

static void
nodelay(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* --- joining: the handshake --- */

#define NONCE_BYTES 16
#define MAC_BYTES 32
#define JOIN_MAX_BYTES 512 /* the longest handshake message */
#define CTRL_PROTO 2

static void
to_hex(const uint8_t *b, size_t n, char *out)
{
	static const char d[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = d[b[i] >> 4];
		out[2 * i + 1] = d[b[i] & 15];
	}
	out[2 * n] = '\0';
}

/* Exactly n bytes of hex; 0 or -1. */
static int
from_hex(const char *h, uint8_t *b, size_t n)
{
	size_t i;

	if (h == NULL || strlen(h) != 2 * n)
		return -1;
	for (i = 0; i < 2 * n; i++) {
		int v = isdigit((unsigned char)h[i]) ? h[i] - '0'
			: (h[i] >= 'a' && h[i] <= 'f') ? h[i] - 'a' + 10
			: (h[i] >= 'A' && h[i] <= 'F') ? h[i] - 'A' + 10 : -1;

		if (v < 0)
			return -1;
		if (i % 2 == 0)
			b[i / 2] = (uint8_t)(v << 4);
		else
			b[i / 2] |= (uint8_t)v;
	}
	return 0;
}

/* HMAC-SHA256(key, what || nonce_c || nonce_p || rank || nranks): what
 * tells the join's proof from the welcome's, the nonces make it fresh. */
static int
join_mac(const struct ctrl_opts *o, const char *what, const uint8_t *nc, const uint8_t *np,
	 uint32_t rank, uint32_t nranks, uint8_t *mac)
{
	uint8_t m[32 + 2 * NONCE_BYTES + 8];
	size_t wl = strlen(what), len = 0;
	unsigned int ml = 0;
	uint32_t be;

	memcpy(m, what, wl);
	len = wl;
	memcpy(m + len, nc, NONCE_BYTES);
	len += NONCE_BYTES;
	memcpy(m + len, np, NONCE_BYTES);
	len += NONCE_BYTES;
	be = htonl(rank);
	memcpy(m + len, &be, 4);
	be = htonl(nranks);
	memcpy(m + len + 4, &be, 4);
	len += 8;
	return HMAC(EVP_sha256(), o->key, (int)o->key_len, m, len, mac, &ml) != NULL &&
	       ml == MAC_BYTES ? 0 : -1;
}

/* j (consumed) with its proof, join_mac() as "mac", when there is a key;
 * NULL when j was NULL or the proof could not be made. */
static json_t *
with_mac(json_t *j, const struct ctrl_opts *o, const char *what, const uint8_t *nc,
	 const uint8_t *np, uint32_t rank, uint32_t nranks)
{
	uint8_t mac[MAC_BYTES];
	char hex[2 * MAC_BYTES + 1];

	if (j == NULL || o == NULL || o->key_len == 0)
		return j;
	if (join_mac(o, what, nc, np, rank, nranks, mac) != 0) {
		json_decref(j);
		return NULL;
	}
	to_hex(mac, MAC_BYTES, hex);
	json_object_set_new(j, "mac", json_string(hex));
	return j;
}

/* A handshake message's "mac" against the one expected. */
static bool
mac_ok(const json_t *j, const uint8_t *want)
{
	uint8_t got[MAC_BYTES];

	return from_hex(json_string_value(json_object_get(j, "mac")), got, MAC_BYTES) == 0 &&
	       CRYPTO_memcmp(got, want, MAC_BYTES) == 0;
}

static bool
keyed(const struct ctrl_opts *o)
{
	return o != NULL && o->key_len > 0;
}

/* A connection in its handshake at rank 0. */
struct pending {
	int fd;
	uint64_t deadline;
	uint64_t seq;           /* the order of accept: the oldest goes first */
	uint8_t nonce[NONCE_BYTES];
	uint8_t buf[4 + JOIN_MAX_BYTES];
	uint32_t got;
};

/* A whole small message, at once or not at all (a socket just accepted
 * has room for it). */
static int
send_now(int fd, json_t *j)
{
	size_t n;
	uint8_t *b = frame_msg(j, JOIN_MAX_BYTES, &n);
	ssize_t k;

	if (b == NULL)
		return -1;
	k = send(fd, b, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	free(b);
	return k == (ssize_t)n ? 0 : -1;
}

/* Turn a joining connection away and count it, telling it why in a word
 * when there is one (a real peer with the wrong key or rank then says so;
 * a stranger learns nothing of the run). */
static void
refuse(int fd, const char *why, uint32_t *count)
{
	if (why != NULL) {
		json_t *j = json_pack("{s:s}", "refused", why);

		if (j != NULL)
			(void)send_now(fd, j);
		json_decref(j);
	}
	close(fd);
	(*count)++;
}

/* rank 0: a whole join message from p (len bytes after its length): a
 * rank for it, or refused. 1 when it joined. */
static int
join_one(struct ctrl *c, const struct ctrl_opts *o, struct pending *p, uint32_t len)
{
	uint8_t np[NONCE_BYTES], mac[MAC_BYTES];
	json_int_t r = -2, n = -2;
	json_error_t je;
	json_t *j, *w;

	j = json_loadb((const char *)p->buf + 4, len, 0, &je);
	if (j == NULL || json_unpack(j, "{s:I, s:I}", "rank", &r, "nranks", &n) != 0 ||
	    from_hex(json_string_value(json_object_get(j, "nonce")), np, NONCE_BYTES) != 0) {
		json_decref(j);
		refuse(p->fd, "malformed", &c->refused.malformed);
		return 0;
	}
	if (keyed(o) && (join_mac(o, "uet-perf join", p->nonce, np, (uint32_t)r, (uint32_t)n,
				  mac) != 0 || !mac_ok(j, mac))) {
		json_decref(j);
		refuse(p->fd, "key", &c->refused.key);
		return 0;
	}
	json_decref(j);
	if (r == -1 && n == 0) {
		/* A client without a rank (pairwise mode): the next free
		 * one, in the order they prove themselves. */
		for (r = 1; r < (json_int_t)c->nranks && c->fds[r] >= 0; r++)
			;
		n = c->nranks;
	}
	if (n != (json_int_t)c->nranks || r <= 0 || r >= n || c->fds[r] >= 0) {
		refuse(p->fd, "rank", &c->refused.rank);
		return 0;
	}
	w = with_mac(json_pack("{s:I, s:I}", "rank", r, "nranks", (json_int_t)c->nranks), o,
		     "uet-perf welcome", p->nonce, np, (uint32_t)r, c->nranks);
	if (w == NULL || send_now(p->fd, w) != 0) {
		json_decref(w);
		refuse(p->fd, NULL, &c->refused.closed);
		return 0;
	}
	json_decref(w);
	c->fds[r] = p->fd;
	return 1;
}

/* rank 0: bytes from a joining connection; 1 joined, 0 still going, -1
 * gone (closed, refused). */
static int
pending_read(struct ctrl *c, const struct ctrl_opts *o, struct pending *p)
{
	ssize_t k = recv(p->fd, p->buf + p->got, sizeof(p->buf) - p->got, MSG_DONTWAIT);
	uint32_t len;
	int rc;

	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (k <= 0) {
		refuse(p->fd, NULL, &c->refused.closed);
		return -1;
	}
	p->got += (uint32_t)k;
	if (p->got < 4)
		return 0;
	memcpy(&len, p->buf, 4);
	len = ntohl(len);
	if (len > JOIN_MAX_BYTES) {
		refuse(p->fd, "malformed", &c->refused.malformed);
		return -1;
	}
	if (p->got < 4 + len)
		return 0;
	rc = join_one(c, o, p, len);
	/* The socket stays non-blocking: every wait of the channel is in
	 * poll(), with its deadline and the stop flag, never in a send(). */
	if (rc == 1)
		nodelay(p->fd);
	return rc == 1 ? 1 : -1;
}

static bool
allowed(const struct ctrl_opts *o, const struct sockaddr_in *from)
{
	uint32_t i;

	if (o == NULL || o->n_allow == 0)
		return true;
	for (i = 0; i < o->n_allow; i++)
		if (o->allow_ip[i] == from->sin_addr.s_addr)
			return true;
	return false;
}

/* rank 0: take every connection waiting; each gets its challenge at once. */
static void
accept_all(struct ctrl *c, const struct ctrl_opts *o, struct pending *pend, uint32_t *npend)
{
	uint32_t taken;

	/* A bounded batch: a flood of connections must not keep rank 0 from
	 * its deadline, its stop flag and the handshakes under way. */
	for (taken = 0; taken < CTRL_MAX_PENDING; taken++) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		struct pending *p;
		char hex[2 * NONCE_BYTES + 1];
		json_t *j;
		int fd = accept4(c->lfd, (struct sockaddr *)&from, &fl,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0)
			return;
		if (fl != sizeof(from) || from.sin_family != AF_INET || !allowed(o, &from)) {
			refuse(fd, NULL, &c->refused.address);
			continue;
		}
		if (*npend == CTRL_MAX_PENDING) {
			/* full: the oldest goes (a real peer would be done) */
			uint32_t i, old = 0;

			for (i = 1; i < *npend; i++)
				if (pend[i].seq < pend[old].seq)
					old = i;
			refuse(pend[old].fd, NULL, &c->refused.evicted);
			pend[old] = pend[--*npend];
		}
		p = &pend[*npend];
		memset(p, 0, sizeof(*p));
		p->fd = fd;
		p->seq = ++c->accepted;
		p->deadline = mono_ms() + CTRL_HANDSHAKE_MS;
		if (RAND_bytes(p->nonce, NONCE_BYTES) != 1) {
			close(fd);
			continue;
		}
		to_hex(p->nonce, NONCE_BYTES, hex);
		j = json_pack("{s:i, s:s, s:b}", "uet-perf-ctrl", CTRL_PROTO, "nonce", hex, "auth",
			      keyed(o));
		if (j == NULL || send_now(fd, j) != 0) {
			json_decref(j);
			refuse(fd, NULL, &c->refused.closed);
			continue;
		}
		json_decref(j);
		(*npend)++;
	}
}

static int
open_coordinator(struct ctrl *c, uint16_t port, const struct ctrl_opts *o, uint64_t deadline,
		 char *err, size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = o != NULL ? o->bind_ip : 0 };
	struct pollfd pfd[1 + CTRL_MAX_PENDING];
	struct pending *pend;
	uint32_t joined = 1, npend = 0, i;
	int one = 1;

	c->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->lfd < 0 || setsockopt(c->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(c->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(c->lfd, 64) != 0) {
		char ip[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &a.sin_addr, ip, sizeof(ip));
		snprintf(err, errlen, "control channel: cannot listen on %s:%u: %s", ip, port,
			 strerror(errno));
		return -1;
	}
	pend = calloc(CTRL_MAX_PENDING, sizeof(*pend));
	if (pend == NULL) {
		snprintf(err, errlen, "control channel: out of memory");
		return -1;
	}
	while (joined < c->nranks) {
		uint64_t now = mono_ms(), wake = deadline;
		int rc;

		if (stop_flag != NULL && *stop_flag >= stop_level) {
			stopped = 1;
			snprintf(err, errlen, "control channel: interrupted (SIGINT/SIGTERM) while "
				 "%u of %u ranks had joined", joined, c->nranks);
			break;
		}
		if (now >= deadline) {
			snprintf(err, errlen, "control channel: %u of %u ranks joined within "
				 "%.1f s", joined, c->nranks, c->timeout_ms / 1e3);
			break;
		}
		/* handshakes past their time go, the rest wait together */
		for (i = 0; i < npend;) {
			if (pend[i].deadline <= now) {
				close(pend[i].fd);
				c->refused.timeout++;
				pend[i] = pend[--npend];
				continue;
			}
			if (pend[i].deadline < wake)
				wake = pend[i].deadline;
			i++;
		}
		pfd[0] = (struct pollfd){ .fd = c->lfd, .events = POLLIN };
		for (i = 0; i < npend; i++)
			pfd[1 + i] = (struct pollfd){ .fd = pend[i].fd, .events = POLLIN };
		rc = poll(pfd, 1 + npend, wake - now < STOP_CHECK_MS ? (int)(wake - now)
								   : STOP_CHECK_MS);
		if (rc <= 0)
			continue;
		/* from the back: a finished handshake leaves its place to the
		 * last one, which was looked at already */
		for (i = npend; i-- > 0;) {
			if (!(pfd[1 + i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			rc = pending_read(c, o, &pend[i]);
			if (rc == 1)
				joined++;
			if (rc != 0)
				pend[i] = pend[--npend];
		}
		if (pfd[0].revents & POLLIN)
			accept_all(c, o, pend, &npend);
	}
	/* handshakes still going when the last rank joined */
	for (i = 0; i < npend; i++) {
		close(pend[i].fd);
		c->refused.unfinished++;
	}
	free(pend);
	if (joined < c->nranks)
		return -1;
	/* Everyone is here: later connections find nothing listening. */
	close(c->lfd);
	c->lfd = -1;
	return 0;
}

/* A peer reads rank 0's challenge: its nonce, and whether it wants a key.
 * 0 or -1 (not a uet-perf rank 0 of this version). */
static int
challenge_parse(const json_t *j, uint8_t *nc, int *auth)
{
	json_int_t proto = 0;

	return j != NULL &&
	       json_unpack((json_t *)j, "{s:I, s:b}", "uet-perf-ctrl", &proto, "auth", auth) == 0 &&
	       proto == CTRL_PROTO &&
	       from_hex(json_string_value(json_object_get(j, "nonce")), nc, NONCE_BYTES) == 0
	       ? 0 : -1;
}

#define WELCOME_REFUSED (-1)     /* a refusal, or no welcome at all */
#define WELCOME_KEY_REFUSED (-2) /* rank 0 refused our key */
#define WELCOME_UNPROVEN (-3)    /* the welcome does not prove the key */

/* A peer reads rank 0's welcome to its join (nonces nc, np; want: the rank
 * asked for, UINT32_MAX for any): its rank and the run's size, and with a
 * key rank 0's proof. 0 or a WELCOME_*. */
static int
welcome_parse(const struct ctrl_opts *o, const json_t *j, const uint8_t *nc, const uint8_t *np,
	      uint32_t want, uint32_t *rank, uint32_t *nranks)
{
	const char *why = json_string_value(json_object_get(j, "refused"));
	uint8_t mac[MAC_BYTES];
	json_int_t r, n;

	if (why != NULL && strcmp(why, "key") == 0)
		return WELCOME_KEY_REFUSED;
	if (j == NULL || json_unpack((json_t *)j, "{s:I, s:I}", "rank", &r, "nranks", &n) != 0 ||
	    n < 2 || n > UINT32_MAX || r <= 0 || r >= n ||
	    (want != UINT32_MAX && (uint32_t)r != want))
		return WELCOME_REFUSED;
	if (keyed(o) && (join_mac(o, "uet-perf welcome", nc, np, (uint32_t)r, (uint32_t)n,
				  mac) != 0 || !mac_ok(j, mac)))
		return WELCOME_UNPROVEN;
	*rank = (uint32_t)r;
	*nranks = (uint32_t)n;
	return 0;
}

static int
open_peer(struct ctrl *c, const char *ip, uint16_t port, const struct ctrl_opts *o,
	  uint64_t deadline, char *err, size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	uint8_t nc[NONCE_BYTES], np[NONCE_BYTES];
	char hex[2 * MAC_BYTES + 1];
	uint32_t want = c->rank == CTRL_RANK_ANY ? UINT32_MAX : c->rank, r, n;
	bool closed = false;
	json_t *j;
	int auth = 0, rc;

	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
		snprintf(err, errlen, "control channel: bad coordinator address '%s'", ip);
		return -1;
	}
	/* Connect, and read rank 0's challenge; a connection rank 0 closes
	 * before that (not listening yet, too many handshakes at once) is
	 * tried again until the deadline. */
	for (;;) {
		struct sockaddr_in me = { .sin_family = AF_INET,
					  .sin_addr.s_addr = o != NULL ? o->src_ip : 0 };
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), why = 0;
		bool up;

		/* From this process's own control address, the one rank 0
		 * lets in (a host with several may pick another). */
		up = fd >= 0 && (me.sin_addr.s_addr == 0 ||
				 bind(fd, (struct sockaddr *)&me, sizeof(me)) == 0) &&
		     connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
		if (up) {
			int fl = fcntl(fd, F_GETFL);

			/* every wait in poll(), with its deadline */
			if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) != 0)
				up = false;
		}
		if (up) {
			c->fds[0] = fd;
			nodelay(fd);
			j = recv_max(fd, deadline, JOIN_MAX_BYTES, &why);
			if (j != NULL || why == 0)
				break;
			closed |= why == IO_CLOSED;
			c->fds[0] = -1;
		}
		if (fd >= 0)
			close(fd);
		if (left_ms(deadline) == 0 || stopped) {
			snprintf(err, errlen, "control channel: cannot reach rank 0 at %s:%u "
				 "within %.1f s: %s", ip, port, c->timeout_ms / 1e3,
				 stopped ? "interrupted (SIGINT/SIGTERM)"
				 : closed ? "it closed every connection before its challenge "
					    "(another address than this process's control address "
					    "in the hosts list?)"
				 : up ? "no challenge came" : strerror(errno));
			return -1;
		}
		usleep(50000);
	}
	if (challenge_parse(j, nc, &auth) != 0) {
		json_decref(j);
		snprintf(err, errlen, "control channel: %s:%u is not a uet-perf rank 0 of this "
			 "version", ip, port);
		return -1;
	}
	json_decref(j);
	if (auth != keyed(o)) {
		snprintf(err, errlen, "control channel: rank 0 at %s:%u runs %s a key, this process "
			 "%s (--auth-key, or UET_PERF_AUTH_KEY, on every process or on none)", ip, port,
			 auth ? "with" : "without", auth ? "without" : "with");
		return -1;
	}
	if (RAND_bytes(np, NONCE_BYTES) != 1) {
		snprintf(err, errlen, "control channel: no random bytes for a nonce");
		return -1;
	}
	to_hex(np, NONCE_BYTES, hex);
	j = json_pack("{s:I, s:I, s:s}", "rank",
		      c->rank == CTRL_RANK_ANY ? (json_int_t)-1 : (json_int_t)c->rank,
		      "nranks", (json_int_t)c->nranks, "nonce", hex);
	j = with_mac(j, o, "uet-perf join", nc, np,
		     c->rank == CTRL_RANK_ANY ? UINT32_MAX : c->rank, c->nranks);
	if (j == NULL || send_msg(c->fds[0], j, deadline) != 0) {
		json_decref(j);
		snprintf(err, errlen, "control channel: rank 0 closed the connection");
		return -1;
	}
	json_decref(j);
	/* The welcome: our rank (assigned, or ours confirmed) and the size. */
	j = recv_max(c->fds[0], deadline, JOIN_MAX_BYTES, NULL);
	rc = welcome_parse(o, j, nc, np, want, &r, &n);
	json_decref(j);
	if (rc == WELCOME_KEY_REFUSED)
		snprintf(err, errlen, "control channel: rank 0 at %s:%u refused this process's key "
			 "(--auth-key: another run's key, or another key file)", ip, port);
	else if (rc == WELCOME_REFUSED)
		snprintf(err, errlen, "control channel: rank 0 at %s:%u refused rank %d of %u "
			 "(another run on that port, a rank taken twice, or a different hosts "
			 "list)", ip, port, c->rank == CTRL_RANK_ANY ? -1 : (int)c->rank,
			 c->nranks);
	else if (rc == WELCOME_UNPROVEN)
		snprintf(err, errlen, "control channel: %s:%u did not prove it holds the key: not "
			 "this run's rank 0", ip, port);
	if (rc != 0)
		return -1;
	c->rank = r;
	c->nranks = n;
	return 0;
}

int
ctrl_open(uint32_t rank, uint32_t nranks, const char *coord_ip, uint16_t port,
	  uint32_t timeout_ms, const struct ctrl_opts *o, struct ctrl **out, char *err,
	  size_t errlen)
{
	uint64_t deadline = mono_ms() + timeout_ms;
	struct ctrl *c;
	uint32_t i;
	int rc;

	if (rank != CTRL_RANK_ANY && (nranks == 0 || rank >= nranks)) {
		snprintf(err, errlen, "control channel: rank %u of %u", rank, nranks);
		return -1;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -1;
	c->fds = malloc((nranks ? nranks : 1) * sizeof(int));
	if (c->fds == NULL) {
		free(c);
		return -1;
	}
	for (i = 0; i < (nranks ? nranks : 1); i++)
		c->fds[i] = -1;
	c->lfd = -1;
	c->rank = rank;
	c->nranks = nranks;
	c->timeout_ms = timeout_ms;
	rc = rank == 0 ? open_coordinator(c, port, o, deadline, err, errlen)
		       : open_peer(c, coord_ip, port, o, deadline, err, errlen);
	if (rc != 0) {
		ctrl_close(c);
		return -1;
	}
	*out = c;
	return 0;
}

const struct ctrl_refused *
ctrl_refused(const struct ctrl *c, uint32_t *n)
{
	const struct ctrl_refused *r = &c->refused;

	*n = r->address + r->key + r->malformed + r->rank + r->timeout + r->evicted + r->closed +
	     r->unfinished;
	return r;
}

int
ctrl_key_hex(const char *hex, struct ctrl_opts *o, char *err, size_t errlen)
{
	size_t n = hex != NULL ? strlen(hex) : 0;

	while (n > 0 && isspace((unsigned char)hex[n - 1]))
		n--;
	if (n % 2 != 0 || n / 2 < CTRL_KEY_MIN_BYTES || n / 2 > CTRL_KEY_MAX_BYTES) {
		snprintf(err, errlen, "a key is %u to %u bytes in hex (%zu characters given): "
			 "make one with 'openssl rand -hex 32'", CTRL_KEY_MIN_BYTES,
			 CTRL_KEY_MAX_BYTES, n);
		return -1;
	}
	{
		char h[2 * CTRL_KEY_MAX_BYTES + 1];

		memcpy(h, hex, n);
		h[n] = '\0';
		if (from_hex(h, o->key, n / 2) != 0) {
			snprintf(err, errlen, "a key is hex digits only");
			return -1;
		}
	}
	o->key_len = n / 2;
	return 0;
}

/* A new key file: written under a temporary name, then renamed, so that a
 * process reading it (another rank on a shared filesystem) sees all of it
 * or none. */
static int
key_create(const char *path, char *err, size_t errlen)
{
	uint8_t k[32];
	char hex[2 * sizeof(k) + 2], tmp[600];
	int fd, ok;

	if (RAND_bytes(k, sizeof(k)) != 1) {
		snprintf(err, errlen, "%s: no random bytes for a key", path);
		return -1;
	}
	to_hex(k, sizeof(k), hex);
	strcat(hex, "\n");
	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
		return -1;
	}
	ok = write(fd, hex, strlen(hex)) == (ssize_t)strlen(hex);
	ok = close(fd) == 0 && ok;
	/* link() fails if another process made the file meanwhile: its
	 * key stands. */
	if (!ok || (link(tmp, path) != 0 && errno != EEXIST)) {
		snprintf(err, errlen, "%s: cannot write: %s", path,
			 ok ? strerror(errno) : "short write");
		unlink(tmp);
		return -1;
	}
	unlink(tmp);
	return 0;
}

int
ctrl_key_file(const char *path, bool create, struct ctrl_opts *o, bool *created, char *err,
	      size_t errlen)
{
	char buf[4 * CTRL_KEY_MAX_BYTES + 2];
	struct stat st;
	ssize_t n;
	int fd;

	*created = false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && create) {
		if (key_create(path, err, errlen) != 0)
			return -1;
		*created = true;
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077) != 0) {
		close(fd);
		snprintf(err, errlen, "%s: %s", path, !S_ISREG(st.st_mode) ? "not a file"
			 : "readable or writable by others: the key is a secret (chmod 600)");
		return -1;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	buf[n] = '\0';
	if (ctrl_key_hex(buf, o, err, errlen) != 0) {
		char why[200];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}

uint32_t
ctrl_rank(const struct ctrl *c)
{
	return c->rank;
}

uint32_t
ctrl_nranks(const struct ctrl *c)
{
	return c->nranks;
}

void
ctrl_close(struct ctrl *c)
{
	uint32_t i;

	if (c == NULL)
		return;
	/* A peer learns nranks late: it holds fds[0] only. */
	for (i = 0; i < (c->rank == 0 ? c->nranks : 1); i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	if (c->lfd >= 0)
		close(c->lfd);
	free(c->fds);
	free(c->watch_skip);
	free(c->watch_pfd);
	free(c->watch_idx);
	free(c);
}

/* A stop notice: {"stop": the process that was interrupted}, or
 * {"stop": process, "lost": true} when its connection closed. Small, so
 * that ctrl_watch can tell it from a result by its length alone. */
#define STOP_MSG_MAX 64

static bool
is_stop(const json_t *j, int *from, bool *lost)
{
	const json_t *v = json_object_get(j, "stop"), *l = json_object_get(j, "lost");

	if (!json_is_integer(v) || json_object_size(j) != 1 + (l != NULL) ||
	    (l != NULL && !json_is_true(l)))
		return false;
	if (from != NULL)
		*from = (int)json_integer_value(v);
	if (lost != NULL)
		*lost = l != NULL;
	return true;
}

/* The fds this process talks to: rank 0 every peer's, a peer rank 0's. */
static uint32_t
fd_first(const struct ctrl *c)
{
	return c->rank == 0 ? 1 : 0;
}

static uint32_t
fd_end(const struct ctrl *c)
{
	return c->rank == 0 ? c->nranks : 1;
}

/* A stop notice from process from to every process this one talks to
 * but except, each send waiting at most wait_ms; 0 or -1 (one not told). */
static int
send_stops(struct ctrl *c, uint32_t except, int from, bool lost, uint32_t wait_ms)
{
	json_t *m = lost ? json_pack("{s:i, s:b}", "stop", from, "lost", 1)
			 : json_pack("{s:i}", "stop", from);
	uint32_t i;
	int rc = 0;

	if (m == NULL)
		return -1;
	for (i = fd_first(c); i < fd_end(c); i++)
		if (i != except &&
		    (c->fds[i] < 0 || send_msg(c->fds[i], m, mono_ms() + wait_ms) != 0))
			rc = -1;
	json_decref(m);
	return rc;
}

/* Rank 0 passes a stop notice from one peer on to the others (a short
 * wait each: a peer that cannot take it is ending anyway). */
static void
relay_stop(struct ctrl *c, uint32_t except, int from, bool lost)
{
	(void)send_stops(c, except, from, lost, STOP_CHECK_MS);
}

int
ctrl_send_stop(struct ctrl *c)
{
	return send_stops(c, UINT32_MAX, (int)c->rank, false, c->timeout_ms);
}

void
ctrl_watch_reset(struct ctrl *c)
{
	if (c->watch_skip == NULL) {
		c->watch_skip = calloc(fd_end(c), sizeof(bool));
		c->watch_pfd = calloc(fd_end(c), sizeof(struct pollfd));
		c->watch_idx = calloc(fd_end(c), sizeof(uint32_t));
	} else {
		memset(c->watch_skip, 0, fd_end(c) * sizeof(bool));
	}
}

int
ctrl_watch(struct ctrl *c, uint32_t wait_ms, bool *lost)
{
	struct pollfd *p;
	uint32_t *idx, n = 0, i, k;
	bool partial = false;

	*lost = false;
	if (c->watch_skip == NULL)
		ctrl_watch_reset(c);
	if (c->watch_skip == NULL || c->watch_pfd == NULL || c->watch_idx == NULL)
		return -1;
	p = c->watch_pfd;
	idx = c->watch_idx;
	for (i = fd_first(c); i < fd_end(c); i++)
		if (c->fds[i] >= 0 && !c->watch_skip[i]) {
			p[n] = (struct pollfd){ .fd = c->fds[i], .events = POLLIN | POLLRDHUP };
			idx[n++] = i;
		}
	if (n == 0) {
		/* Nothing left to watch: wait all the same, the caller loops. */
		(void)poll(NULL, 0, (int)wait_ms);
		return -1;
	}
	if (poll(p, n, (int)wait_ms) <= 0)
		return -1;
	for (k = 0; k < n; k++) {
		uint8_t buf[4 + STOP_MSG_MAX + 1];
		json_error_t je;
		uint32_t len;
		ssize_t got;
		json_t *j;
		int from;

		if (!(p[k].revents & (POLLIN | POLLRDHUP | POLLHUP | POLLERR)))
			continue;
		i = idx[k];
		/* Look without taking: anything but a whole stop notice stays
		 * where it is for the gather. */
		got = recv(c->fds[i], buf, sizeof(buf) - 1, MSG_PEEK | MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		/* The process at the other end is gone (exited, killed), or
		 * went in the middle of a small message that will not come
		 * whole: every process ends its run now, not at its end. */
		len = 0;
		if (got >= 4) {
			memcpy(&len, buf, 4);
			len = ntohl(len);
		}
		if (got <= 0 || ((got < 4 || (len <= STOP_MSG_MAX && (size_t)got < 4 + len)) &&
				 (p[k].revents & (POLLRDHUP | POLLHUP | POLLERR)))) {
			c->watch_skip[i] = true;
			*lost = true;
			if (c->rank == 0)
				relay_stop(c, i, (int)i, true);
			return (int)i;
		}
		if (got < 4) {
			partial = true;
			continue;
		}
		if (len > STOP_MSG_MAX) {
			c->watch_skip[i] = true;
			continue;
		}
		if ((size_t)got < 4 + len) {
			partial = true;
			continue;
		}
		buf[4 + len] = '\0';
		j = json_loads((const char *)buf + 4, 0, &je);
		if (j == NULL || !is_stop(j, &from, lost)) {
			json_decref(j);
			c->watch_skip[i] = true;
			continue;
		}
		json_decref(j);
		(void)recv(c->fds[i], buf, 4 + len, MSG_DONTWAIT);
		if (c->rank == 0)
			relay_stop(c, i, from, *lost);
		return from;
	}
	/* The rest of a message on its way: readable already, so poll()
	 * would not wait for it. */
	if (partial)
		(void)poll(NULL, 0, 1);
	return -1;
}

/* The next message from fd that is not a stop notice (rank 0 relays those:
 * a peer interrupted after this process ended its run). */
static json_t *
recv_result(struct ctrl *c, uint32_t i, uint64_t deadline, int *why)
{
	for (;;) {
		json_t *j = recv_msg(c->fds[i], deadline, why);
		bool lost;
		int from;

		if (j == NULL || !is_stop(j, &from, &lost))
			return j;
		json_decref(j);
		if (c->rank == 0)
			relay_stop(c, i, from, lost);
	}
}

/* Why nothing came from rank r, into err. */
static void
say_why(int why, uint32_t r, uint32_t timeout_ms, char *err, size_t errlen)
{
	if (stopped)
		snprintf(err, errlen, "control channel: interrupted (SIGINT/SIGTERM) waiting for "
			 "rank %u", r);
	else if (why == IO_CLOSED)
		snprintf(err, errlen, "control channel: rank %u closed its connection (it exited "
			 "or was killed)", r);
	else if (why == IO_TIMEOUT)
		snprintf(err, errlen, "control channel: no answer from rank %u within %.1f s", r,
			 timeout_ms / 1e3);
	else
		snprintf(err, errlen, "control channel: rank %u sent a malformed message", r);
}

int
ctrl_gather_each(struct ctrl *c, json_t *mine, uint32_t timeout_ms,
		 void (*take)(void *ctx, uint32_t rank, json_t *msg), void *ctx, char *err,
		 size_t errlen)
{
	uint64_t deadline = mono_ms() + timeout_ms;
	uint32_t r;

	if (c->rank != 0) {
		int rc = send_msg(c->fds[0], mine, deadline);

		if (rc != 0) {
			say_why(rc, 0, timeout_ms, err, errlen);
			return -1;
		}
		return 0;
	}
	take(ctx, 0, mine);
	/* Peers answer in any order; take them in rank order, each with its
	 * own deadline share. */
	for (r = 1; r < c->nranks; r++) {
		int why;
		json_t *j = recv_result(c, r, deadline, &why);

		if (j == NULL) {
			say_why(why, r, timeout_ms, err, errlen);
			return -1;
		}
		take(ctx, r, j);
		json_decref(j);
	}
	return 0;
}

static void
take_append(void *ctx, uint32_t rank, json_t *msg)
{
	(void)rank;
	json_array_append((json_t *)ctx, msg);
}

/* ctrl_gather_each into an array at rank 0 (JSON null elsewhere). */
static json_t *
ctrl_gather(struct ctrl *c, json_t *mine, uint32_t timeout_ms, char *err, size_t errlen)
{
	json_t *all = c->rank == 0 ? json_array() : json_null();

	if (ctrl_gather_each(c, mine, timeout_ms, take_append, all, err, errlen) != 0) {
		json_decref(all);
		return NULL;
	}
	return all;
}

json_t *
ctrl_bcast(struct ctrl *c, json_t *msg, uint32_t timeout_ms, char *err, size_t errlen)
{
	uint64_t deadline = mono_ms() + timeout_ms;
	json_t *got;
	uint32_t r;

	if (c->rank == 0) {
		for (r = 1; r < c->nranks; r++) {
			if (send_msg(c->fds[r], msg, deadline) != 0) {
				snprintf(err, errlen, "control channel: lost rank %u", r);
				return NULL;
			}
		}
		return json_incref(msg);
	}
	{
		int why;

		got = recv_result(c, 0, deadline, &why);
		if (got == NULL)
			say_why(why, 0, timeout_ms, err, errlen);
	}
	return got;
}

json_t *
ctrl_allgather(struct ctrl *c, json_t *mine, uint32_t timeout_ms, char *err, size_t errlen)
{
	json_t *all = ctrl_gather(c, mine, timeout_ms, err, errlen), *got;

	if (all == NULL)
		return NULL;
	got = ctrl_bcast(c, all, timeout_ms, err, errlen);
	json_decref(all);
	if (got != NULL && (!json_is_array(got) || json_array_size(got) != c->nranks)) {
		snprintf(err, errlen, "control channel: rank 0 sent a malformed gather");
		json_decref(got);
		return NULL;
	}
	return got;
}
