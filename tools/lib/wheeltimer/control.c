// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * control.c - the context's clock, the virtual clock's advance, and the
 * eventfd
 *
 * wheeltimer_advance() submits what is queued first, so that timeouts
 * added before it take part in it, as they would with a real clock.
 */
#include <errno.h>

#include "internal.h"

int wheeltimer_now(const struct wheeltimer *wt, uint64_t *now)
{
	return wt->engine->now(wt, now);
}

int wheeltimer_advance(struct wheeltimer *wt, uint64_t time, uint32_t flags,
		       uint64_t *now, uint64_t *expired)
{
	struct wt_advance adv = {
		.time = time,
		.flags = flags,
	};
	int ret;

	if (flags & ~WHEELTIMER_ADVANCE_SET)
		return -EINVAL;
	if (!wt->virtual)
		return -EINVAL;
	ret = wtl_submit(wt);
	if (ret < 0)
		return ret;
	ret = wt->engine->advance(wt, &adv);
	if (ret)
		return ret;
	if (now)
		*now = adv.now;
	if (expired)
		*expired = adv.expired;
	return 0;
}

int wheeltimer_set_eventfd(struct wheeltimer *wt, int eventfd)
{
	if (!(wt->features & WT_FEATURE_EVENTFD) || !wt->engine->set_eventfd)
		return -WHEELTIMER_EFEATURE;
	if (eventfd < -1)
		return -EBADF;
	return wt->engine->set_eventfd(wt, eventfd < 0 ? WT_EVENTFD_NONE :
						       (uint32_t)eventfd);
}
