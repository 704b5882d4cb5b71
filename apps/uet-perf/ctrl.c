/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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

static int
io_all(int fd, void *buf, size_t n, bool wr, uint64_t deadline)
{
	uint8_t *b = buf;

	while (n > 0) {
		ssize_t k;

		if (wait_fd(fd, wr ? POLLOUT : POLLIN, deadline) <= 0)
			return -1;
		k = wr ? send(fd, b, n, MSG_NOSIGNAL) : recv(fd, b, n, 0);
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The length and the text in one write: a small message (a stop notice)
 * then arrives whole, for ctrl_watch to see at once. */
static int
send_msg(int fd, json_t *j, uint64_t deadline)
{
	char *s = json_dumps(j, JSON_COMPACT), *b;
	uint32_t len, be;
	int rc;

	if (s == NULL)
		return -1;
	len = (uint32_t)strlen(s);
	be = htonl(len);
	b = malloc((size_t)len + 4);
	if (b == NULL) {
		free(s);
		return -1;
	}
	memcpy(b, &be, 4);
	memcpy(b + 4, s, len);
	rc = io_all(fd, b, (size_t)len + 4, true, deadline);
	free(b);
	free(s);
	return rc;
}

static json_t *
recv_msg(int fd, uint64_t deadline)
{
	json_error_t je;
	uint32_t be, len;
	char *s;
	json_t *j;

	if (io_all(fd, &be, 4, false, deadline) != 0)
		return NULL;
	len = ntohl(be);
	if (len > MAX_MSG_BYTES)
		return NULL;
	s = malloc(len + 1);
	if (s == NULL)
		return NULL;
	if (io_all(fd, s, len, false, deadline) != 0) {
		free(s);
		return NULL;
	}
	s[len] = '\0';
	j = json_loads(s, 0, &je);
	free(s);
	return j;
}

static void
nodelay(int fd)
{
	int one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int
open_coordinator(struct ctrl *c, uint16_t port, uint64_t deadline, char *err, size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_ANY) };
	uint32_t joined = 1;
	int one = 1;

	c->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->lfd < 0 || setsockopt(c->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
	    bind(c->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(c->lfd, 64) != 0) {
		snprintf(err, errlen, "control channel: cannot listen on TCP port %u: %s", port,
			 strerror(errno));
		return -1;
	}
	while (joined < c->nranks) {
		json_t *j;
		json_int_t r, n;
		int fd;

		if (wait_fd(c->lfd, POLLIN, deadline) <= 0) {
			snprintf(err, errlen, "control channel: %u of %u ranks joined within "
				 "%.1f s", joined, c->nranks, c->timeout_ms / 1e3);
			return -1;
		}
		fd = accept(c->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		nodelay(fd);
		j = recv_msg(fd, deadline);
		r = n = -2;
		if (j != NULL && json_unpack(j, "{s:I, s:I}", "rank", &r, "nranks", &n) == 0 &&
		    r == -1 && n == 0) {
			/* A client without a rank (pairwise mode): the next
			 * free one, in the order they come. */
			for (r = 1; r < (json_int_t)c->nranks && c->fds[r] >= 0; r++)
				;
			n = c->nranks;
		}
		if (j == NULL || n != (json_int_t)c->nranks || r <= 0 || r >= n || c->fds[r] >= 0) {
			/* A stray or mismatched connection: refuse it, keep
			 * waiting for the real ones. */
			json_decref(j);
			close(fd);
			continue;
		}
		json_decref(j);
		j = json_pack("{s:I, s:I}", "rank", r, "nranks", (json_int_t)c->nranks);
		if (j == NULL || send_msg(fd, j, deadline) != 0) {
			json_decref(j);
			close(fd);
			continue;
		}
		json_decref(j);
		c->fds[r] = fd;
		joined++;
	}
	return 0;
}

static int
open_peer(struct ctrl *c, const char *ip, uint16_t port, uint64_t deadline, char *err,
	  size_t errlen)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	json_int_t r, n;
	json_t *j;

	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
		snprintf(err, errlen, "control channel: bad coordinator address '%s'", ip);
		return -1;
	}
	for (;;) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0) {
			c->fds[0] = fd;
			break;
		}
		if (fd >= 0)
			close(fd);
		if (left_ms(deadline) == 0) {
			snprintf(err, errlen, "control channel: cannot reach rank 0 at %s:%u "
				 "within %.1f s: %s", ip, port, c->timeout_ms / 1e3, strerror(errno));
			return -1;
		}
		usleep(50000);
	}
	nodelay(c->fds[0]);
	j = json_pack("{s:I, s:I}", "rank",
		      c->rank == CTRL_RANK_ANY ? (json_int_t)-1 : (json_int_t)c->rank,
		      "nranks", (json_int_t)c->nranks);
	if (j == NULL || send_msg(c->fds[0], j, deadline) != 0) {
		json_decref(j);
		snprintf(err, errlen, "control channel: rank 0 closed the connection");
		return -1;
	}
	json_decref(j);
	/* The welcome: our rank (assigned, or ours confirmed) and the size. */
	j = recv_msg(c->fds[0], deadline);
	if (j == NULL || json_unpack(j, "{s:I, s:I}", "rank", &r, "nranks", &n) != 0 || n < 2 ||
	    r <= 0 || r >= n || (c->rank != CTRL_RANK_ANY && (uint32_t)r != c->rank)) {
		json_decref(j);
		snprintf(err, errlen, "control channel: rank 0 at %s:%u refused rank %d of %u "
			 "(another run on that port, a rank taken twice, or a different hosts "
			 "list)", ip, port, c->rank == CTRL_RANK_ANY ? -1 : (int)c->rank,
			 c->nranks);
		return -1;
	}
	json_decref(j);
	c->rank = (uint32_t)r;
	c->nranks = (uint32_t)n;
	return 0;
}

int
ctrl_open(uint32_t rank, uint32_t nranks, const char *coord_ip, uint16_t port,
	  uint32_t timeout_ms, struct ctrl **out, char *err, size_t errlen)
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
	rc = rank == 0 ? open_coordinator(c, port, deadline, err, errlen)
		       : open_peer(c, coord_ip, port, deadline, err, errlen);
	if (rc != 0) {
		ctrl_close(c);
		return -1;
	}
	*out = c;
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

/* A stop notice: {"stop": the process that was interrupted}. Small, so
 * that ctrl_watch can tell it from a result by its length alone. */
#define STOP_MSG_MAX 64

static bool
is_stop(const json_t *j, int *from)
{
	const json_t *v = json_object_get(j, "stop");

	if (!json_is_integer(v) || json_object_size(j) != 1)
		return false;
	if (from != NULL)
		*from = (int)json_integer_value(v);
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
send_stops(struct ctrl *c, uint32_t except, int from, uint32_t wait_ms)
{
	json_t *m = json_pack("{s:i}", "stop", from);
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
relay_stop(struct ctrl *c, uint32_t except, int from)
{
	(void)send_stops(c, except, from, STOP_CHECK_MS);
}

int
ctrl_send_stop(struct ctrl *c)
{
	return send_stops(c, UINT32_MAX, (int)c->rank, c->timeout_ms);
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
ctrl_watch(struct ctrl *c, uint32_t wait_ms)
{
	struct pollfd *p;
	uint32_t *idx, n = 0, i, k;
	bool partial = false;

	if (c->watch_skip == NULL)
		ctrl_watch_reset(c);
	if (c->watch_skip == NULL || c->watch_pfd == NULL || c->watch_idx == NULL)
		return -1;
	p = c->watch_pfd;
	idx = c->watch_idx;
	for (i = fd_first(c); i < fd_end(c); i++)
		if (c->fds[i] >= 0 && !c->watch_skip[i]) {
			p[n] = (struct pollfd){ .fd = c->fds[i], .events = POLLIN };
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

		if (!(p[k].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		i = idx[k];
		/* Look without taking: anything but a whole stop notice stays
		 * where it is for the gather. */
		got = recv(c->fds[i], buf, sizeof(buf) - 1, MSG_PEEK | MSG_DONTWAIT);
		if (got < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (got <= 0) {
			c->watch_skip[i] = true; /* the peer's end: for the gather to find */
			continue;
		}
		if (got < 4) {
			partial = true;
			continue;
		}
		memcpy(&len, buf, 4);
		len = ntohl(len);
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
		if (j == NULL || !is_stop(j, &from)) {
			json_decref(j);
			c->watch_skip[i] = true;
			continue;
		}
		json_decref(j);
		(void)recv(c->fds[i], buf, 4 + len, MSG_DONTWAIT);
		if (c->rank == 0)
			relay_stop(c, i, from);
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
recv_result(struct ctrl *c, uint32_t i, uint64_t deadline)
{
	for (;;) {
		json_t *j = recv_msg(c->fds[i], deadline);
		int from;

		if (j == NULL || !is_stop(j, &from))
			return j;
		json_decref(j);
		if (c->rank == 0)
			relay_stop(c, i, from);
	}
}

int
ctrl_gather_each(struct ctrl *c, json_t *mine, uint32_t timeout_ms,
		 void (*take)(void *ctx, uint32_t rank, json_t *msg), void *ctx, char *err,
		 size_t errlen)
{
	uint64_t deadline = mono_ms() + timeout_ms;
	uint32_t r;

	if (c->rank != 0) {
		if (send_msg(c->fds[0], mine, deadline) != 0) {
			snprintf(err, errlen, "control channel: %s",
				 stopped ? "interrupted (SIGINT/SIGTERM)" : "lost rank 0");
			return -1;
		}
		return 0;
	}
	take(ctx, 0, mine);
	/* Peers answer in any order; take them in rank order, each with its
	 * own deadline share. */
	for (r = 1; r < c->nranks; r++) {
		json_t *j = recv_result(c, r, deadline);

		if (j == NULL) {
			if (stopped)
				snprintf(err, errlen, "control channel: interrupted (SIGINT/SIGTERM) "
					 "waiting for rank %u", r);
			else
				snprintf(err, errlen, "control channel: rank %u did not report "
					 "within %.1f s", r, timeout_ms / 1e3);
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
	got = recv_result(c, 0, deadline);
	if (got == NULL) {
		if (stopped)
			snprintf(err, errlen, "control channel: interrupted (SIGINT/SIGTERM) "
				 "waiting for rank 0");
		else
			snprintf(err, errlen, "control channel: no answer from rank 0 within "
				 "%.1f s", timeout_ms / 1e3);
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
