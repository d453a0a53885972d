// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl.c - the ioctls of a wheeltimer file other than the operations on
 * timeouts (ops.c): the API handshake, the configuration, the virtual
 * clock's ADVANCE, the eventfd, QUERY, STATS and LEASE
 *
 * Each checks all of its argument before it changes anything, so that a
 * call that fails changes nothing; the core (core.c) holds their rules.
 */
#include <linux/capability.h>
#include <linux/eventfd.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "ctx.h"

#define WT_FEATURES		(WT_FEATURE_VIRTUAL_CLOCK | WT_FEATURE_PERIODIC | \
				 WT_FEATURE_SLACK | WT_FEATURE_EVENTFD | \
				 WT_FEATURE_BOOTTIME | WT_FEATURE_REALTIME | \
				 WT_FEATURE_LEASED_IDS)
#define WT_IOCTLS		(BIT_ULL(_WT_IOC_API) | \
				 BIT_ULL(_WT_IOC_SET_CONFIG) | \
				 BIT_ULL(_WT_IOC_GET_CONFIG) | \
				 BIT_ULL(_WT_IOC_ADD) | BIT_ULL(_WT_IOC_CANCEL) | \
				 BIT_ULL(_WT_IOC_MODIFY) | BIT_ULL(_WT_IOC_BATCH) | \
				 BIT_ULL(_WT_IOC_ADVANCE) | \
				 BIT_ULL(_WT_IOC_SET_EVENTFD) | \
				 BIT_ULL(_WT_IOC_QUERY) | BIT_ULL(_WT_IOC_STATS) | \
				 BIT_ULL(_WT_IOC_LEASE))

long wt_ioctl_api(void __user *uarg)
{
	struct wt_api api;
	long ret = 0;

	if (copy_from_user(&api, uarg, sizeof(api)))
		return -EFAULT;
	/* The answer's fields come in zero, so that they may become inputs. */
	if (api.api != WT_API_VERSION || api.features & ~WT_FEATURES ||
	    api.ioctls || api.event_size || api.batch_max) {
		memset(&api, 0, sizeof(api));
		ret = -EINVAL;
	} else {
		api.features = WT_FEATURES;
		api.ioctls = WT_IOCTLS;
		api.event_size = sizeof(struct wt_event);
		api.batch_max = WT_BATCH_MAX;
	}
	if (copy_to_user(uarg, &api, sizeof(api)))
		return -EFAULT;
	return ret;
}

long wt_ioctl_set_config(struct wt_ctx *ctx, void __user *uarg)
{
	struct wt_config cfg;
	long ret;

	if (copy_from_user(&cfg, uarg, sizeof(cfg)))
		return -EFAULT;
	ret = wt_core_check_config(&cfg, wt_pending_limit());
	if (ret)
		return ret;
	/* Beyond the default is for files opened with CAP_SYS_RESOURCE. */
	if (cfg.max_pending > wt_pending_default() && !ctx->privileged)
		return -EPERM;
	if (!cfg.max_pending)
		cfg.max_pending = wt_pending_default();

	ret = wt_lock(ctx);
	if (ret)
		return ret;
	if (ctx->core.store.nr_live)
		ret = -EBUSY;
	else
		wt_configure(ctx, &cfg);
	wt_unlock(ctx);
	return ret;
}

long wt_ioctl_get_config(struct wt_ctx *ctx, void __user *uarg)
{
	struct wt_config cfg = {};
	long ret;

	ret = wt_lock(ctx);
	if (ret)
		return ret;
	cfg.resolution = ctx->core.resolution;
	cfg.max_pending = ctx->core.max_pending;
	cfg.flags = ctx->core.flags;
	cfg.clockid = ctx->core.clockid;
	wt_unlock(ctx);
	return copy_to_user(uarg, &cfg, sizeof(cfg)) ? -EFAULT : 0;
}

long wt_ioctl_advance(struct wt_ctx *ctx, void __user *uarg)
{
	struct wt_advance __user *uadv = uarg;
	struct wt_advance adv;
	long ret;

	if (copy_from_user(&adv, uadv, sizeof(adv)))
		return -EFAULT;
	/*
	 * The answer must be writable before anything moves: write back what
	 * its fields hold, so that a call that fails changes nothing.
	 */
	if (put_user(adv.now, &uadv->now) ||
	    put_user(adv.expired, &uadv->expired))
		return -EFAULT;
	ret = wt_lock(ctx);
	if (ret)
		return ret;
	ret = wt_core_advance(&ctx->core, &adv);
	wt_unlock(ctx);
	if (ret)
		return ret;
	if (put_user(adv.now, &uadv->now) ||
	    put_user(adv.expired, &uadv->expired))
		return -EFAULT;
	return 0;
}

long wt_ioctl_set_eventfd(struct wt_ctx *ctx, void __user *uarg)
{
	struct eventfd_ctx *new = NULL, *old;
	struct wt_eventfd arg;
	long ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.flags)
		return -EINVAL;
	if (arg.fd != WT_EVENTFD_NONE) {
		if (arg.fd > INT_MAX)
			return -EBADF;
		new = eventfd_ctx_fdget(arg.fd);
		if (IS_ERR(new))
			return PTR_ERR(new);
	}
	ret = wt_lock(ctx);
	if (ret) {
		if (new)
			eventfd_ctx_put(new);
		return ret;
	}
	spin_lock_irq(&ctx->wqh.lock);
	old = ctx->eventfd;
	ctx->eventfd = new;
	/* Records already waiting, or owed, would go unannounced. */
	if (new && wt_records_owed(ctx))
		wt_eventfd_signal(new);
	spin_unlock_irq(&ctx->wqh.lock);
	wt_unlock(ctx);
	if (old)
		eventfd_ctx_put(old);
	return 0;
}

long wt_ioctl_query(struct wt_ctx *ctx, void __user *uarg)
{
	struct wt_query q;
	long ret;

	if (copy_from_user(&q, uarg, sizeof(q)))
		return -EFAULT;
	ret = wt_lock(ctx);
	if (ret)
		return ret;
	ret = wt_core_query(&ctx->core, &q);
	wt_unlock(ctx);
	if (ret)
		return ret;
	return copy_to_user(uarg, &q, sizeof(q)) ? -EFAULT : 0;
}

/*
 * WT_IOC_STATS with a struct of @usize bytes, the size of the caller's
 * struct wt_stats: as much as both know is copied, the rest of the
 * caller's is zeroed.
 */
long wt_ioctl_stats(struct wt_ctx *ctx, void __user *uarg, size_t usize)
{
	struct wt_stats st;
	size_t n = min(usize, sizeof(st));
	long ret;

	if (usize < sizeof(st.size) || usize % sizeof(__u64))
		return -EINVAL;
	ret = wt_lock(ctx);
	if (ret)
		return ret;
	/* What is due counts as fired: it is queued first. */
	wt_core_collect(&ctx->core, WT_COLLECT_ALL);
	wt_stats_fill(ctx, &st);
	wt_unlock(ctx);
	st.size = n;
	if (copy_to_user(uarg, &st, n) ||
	    (usize > n && clear_user(uarg + n, usize - n)))
		return -EFAULT;
	return 0;
}

long wt_ioctl_lease(struct wt_ctx *ctx, void __user *uarg)
{
	struct wt_lease __user *ulease = uarg;
	struct wt_lease lease;
	u32 first, count;
	long ret;

	if (copy_from_user(&lease, ulease, sizeof(lease)))
		return -EFAULT;
	if (lease.flags)
		return -EINVAL;
	/* As for ADVANCE: the answer is checked before anything is leased. */
	if (put_user(lease.first, &ulease->first) ||
	    put_user(lease.count, &ulease->count))
		return -EFAULT;
	ret = wt_lock(ctx);
	if (ret)
		return ret;
	ret = wt_core_lease(&ctx->core, &first, &count);
	wt_unlock(ctx);
	if (ret)
		return ret;
	if (put_user((u64)first, &ulease->first) ||
	    put_user(count, &ulease->count))
		return -EFAULT;
	return 0;
}
