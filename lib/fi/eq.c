/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Event queues. The provider raises no events of its own (RDM endpoints
 * have no connections; AV inserts complete at once), so an EQ holds what
 * the application writes to it (fi_eq_write), as libfabric defines it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fi/uet_fi.h"

#define EQ_ENTRY_MAX 256

struct eq_event {
	uint32_t event;
	size_t len;
	uint8_t data[EQ_ENTRY_MAX];
};

struct ufi_eq {
	struct fid_eq fid;
	pthread_mutex_t lock;
	struct eq_event *q;
	size_t head, count, cap;
};

static ssize_t
eq_read(struct fid_eq *fid, uint32_t *event, void *buf, size_t len, uint64_t flags)
{
	struct ufi_eq *eq = container_of(fid, struct ufi_eq, fid);
	ssize_t rc = -FI_EAGAIN;

	pthread_mutex_lock(&eq->lock);
	if (eq->count > 0) {
		const struct eq_event *e = &eq->q[eq->head];

		if (len < e->len) {
			rc = -FI_ETOOSMALL;
		} else {
			*event = e->event;
			memcpy(buf, e->data, e->len);
			rc = (ssize_t)e->len;
			if (!(flags & FI_PEEK)) {
				eq->head = (eq->head + 1) % eq->cap;
				eq->count--;
			}
		}
	}
	pthread_mutex_unlock(&eq->lock);
	return rc;
}

static ssize_t
eq_readerr(struct fid_eq *fid, struct fi_eq_err_entry *buf, uint64_t flags)
{
	(void)fid;
	(void)buf;
	(void)flags;
	return -FI_EAGAIN; /* no error events: nothing here fails asynchronously */
}

static ssize_t
eq_write(struct fid_eq *fid, uint32_t event, const void *buf, size_t len, uint64_t flags)
{
	struct ufi_eq *eq = container_of(fid, struct ufi_eq, fid);
	ssize_t rc;

	if (len > EQ_ENTRY_MAX || (flags & ~(uint64_t)FI_PEEK) != 0)
		return -FI_EINVAL;
	pthread_mutex_lock(&eq->lock);
	if (eq->count == eq->cap) {
		rc = -FI_EAGAIN;
	} else {
		struct eq_event *e = &eq->q[(eq->head + eq->count) % eq->cap];

		e->event = event;
		e->len = len;
		memcpy(e->data, buf, len);
		eq->count++;
		rc = (ssize_t)len;
	}
	pthread_mutex_unlock(&eq->lock);
	return rc;
}

static ssize_t
eq_sread(struct fid_eq *fid, uint32_t *event, void *buf, size_t len, int timeout,
	 uint64_t flags)
{
	struct timespec t0;
	ssize_t rc;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while ((rc = eq_read(fid, event, buf, len, flags)) == -FI_EAGAIN) {
		if (ufi_timed_out(&t0, timeout))
			return -FI_EAGAIN;
		/* Only another thread's fi_eq_write can end the wait. */
		nanosleep(&(struct timespec){ .tv_nsec = 100000 }, NULL);
	}
	return rc;
}

static const char *
eq_strerror(struct fid_eq *fid, int prov_errno, const void *err_data, char *buf, size_t len)
{
	(void)fid;
	(void)err_data;
	snprintf(buf, len, "%s", uet_strerror(-prov_errno));
	return buf;
}

static int
eq_close(struct fid *fid)
{
	struct ufi_eq *eq = container_of(fid, struct ufi_eq, fid.fid);

	pthread_mutex_destroy(&eq->lock);
	free(eq->q);
	free(eq);
	return 0;
}

static struct fi_ops eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = eq_close,
	.bind = ufi_no_bind,
	.control = ufi_no_wait_control,
	.ops_open = ufi_no_ops_open,
};

static struct fi_ops_eq eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = eq_read,
	.readerr = eq_readerr,
	.write = eq_write,
	.sread = eq_sread,
	.strerror = eq_strerror,
};

int
ufi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr, struct fid_eq **out,
	    void *context)
{
	struct ufi_eq *eq;

	(void)fabric;
	if (attr != NULL && attr->wait_obj != FI_WAIT_NONE && attr->wait_obj != FI_WAIT_UNSPEC)
		return -FI_ENOSYS;
	eq = calloc(1, sizeof(*eq));
	if (eq == NULL)
		return -FI_ENOMEM;
	eq->cap = attr != NULL && attr->size > 0 ? attr->size : 64;
	eq->q = calloc(eq->cap, sizeof(*eq->q));
	if (eq->q == NULL) {
		free(eq);
		return -FI_ENOMEM;
	}
	pthread_mutex_init(&eq->lock, NULL);
	eq->fid.fid.fclass = FI_CLASS_EQ;
	eq->fid.fid.context = context;
	eq->fid.fid.ops = &eq_fi_ops;
	eq->fid.ops = &eq_ops;
	*out = &eq->fid;
	return 0;
}
