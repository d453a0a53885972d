// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * engine_kernel.c - the kernel engine: /dev/wheeltimer
 *
 * Each call of struct wtl_engine is one system call on the device, opened
 * non-blocking and close-on-exec: the library never blocks in read(), it
 * polls. The device is /dev/wheeltimer, or the path in the environment
 * variable WHEELTIMER_DEVICE. A call that a signal interrupts before it
 * did anything (the module's mutex wait) is made again.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static int wtk_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

static int wtk_open(struct wheeltimer *wt)
{
	const char *path = getenv("WHEELTIMER_DEVICE");
	int fd;

	if (!path || !*path)
		path = "/dev/wheeltimer";
	fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	wt->fd = fd;
	return 0;
}

static int wtk_handshake(struct wheeltimer *wt, struct wt_api *api)
{
	memset(api, 0, sizeof(*api));
	api->api = WT_API_VERSION;
	return wtk_ioctl(wt->fd, WT_IOC_API, api);
}

static int wtk_configure(struct wheeltimer *wt, struct wt_config *cfg)
{
	int ret = wtk_ioctl(wt->fd, WT_IOC_SET_CONFIG, cfg);

	if (ret)
		return ret;
	return wtk_ioctl(wt->fd, WT_IOC_GET_CONFIG, cfg);
}

static int wtk_get_config(struct wheeltimer *wt, struct wt_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	return wtk_ioctl(wt->fd, WT_IOC_GET_CONFIG, cfg);
}

static int wtk_batch(struct wheeltimer *wt, struct wt_op *ops, unsigned int n)
{
	struct wt_batch batch = {
		.ops = (uintptr_t)ops,
		.count = n,
	};

	return wtk_ioctl(wt->fd, WT_IOC_BATCH, &batch);
}

static int wtk_read(struct wheeltimer *wt, void *buf, unsigned int max)
{
	ssize_t ret;

	do {
		ret = read(wt->fd, buf, (size_t)max * sizeof(struct wt_event));
	} while (ret < 0 && errno == EINTR);
	if (ret < 0)
		return errno == EAGAIN ? 0 : -errno;
	return ret / sizeof(struct wt_event);
}

static int wtk_advance(struct wheeltimer *wt, struct wt_advance *adv)
{
	int ret = wtk_ioctl(wt->fd, WT_IOC_ADVANCE, adv);

	if (!ret)
		wt->vnow = adv->now;
	return ret;
}

static int wtk_set_eventfd(struct wheeltimer *wt, uint32_t fd)
{
	struct wt_eventfd arg = { .fd = fd };

	return wtk_ioctl(wt->fd, WT_IOC_SET_EVENTFD, &arg);
}

static int wtk_lease(struct wheeltimer *wt, uint32_t *first, uint32_t *count)
{
	struct wt_lease lease = { 0 };
	int ret = wtk_ioctl(wt->fd, WT_IOC_LEASE, &lease);

	if (ret)
		return ret;
	if (lease.first > UINT32_MAX)
		return -EIO;
	*first = (uint32_t)lease.first;
	*count = lease.count;
	return 0;
}

static int wtk_query(struct wheeltimer *wt, struct wt_query *q)
{
	return wtk_ioctl(wt->fd, WT_IOC_QUERY, q);
}

/* The virtual clock moves only by our advances, which report it. */
static int wtk_now(const struct wheeltimer *wt, uint64_t *now)
{
	*now = wt->virtual ? wt->vnow : wtl_clock_ns(wt->clockid);
	return 0;
}

static int wtk_fdinfo(const struct wheeltimer *wt, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", wt->fd);
	return wtl_read_file(path, buf, size);
}

static void wtk_close(struct wheeltimer *wt)
{
	if (wt->fd >= 0)
		close(wt->fd);
	wt->fd = -1;
}

const struct wtl_engine wtl_kernel_engine = {
	.id		= WHEELTIMER_ENGINE_KERNEL,
	.open		= wtk_open,
	.handshake	= wtk_handshake,
	.configure	= wtk_configure,
	.get_config	= wtk_get_config,
	.batch		= wtk_batch,
	.read		= wtk_read,
	.advance	= wtk_advance,
	.set_eventfd	= wtk_set_eventfd,
	.lease		= wtk_lease,
	.query		= wtk_query,
	.now		= wtk_now,
	.fdinfo		= wtk_fdinfo,
	.close		= wtk_close,
};
