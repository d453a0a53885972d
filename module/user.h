/* SPDX-License-Identifier: GPL-2.0 */
/*
 * user.h - the memory all the wheeltimer files of one user hold together
 *
 * Any local user may open /dev/wheeltimer, so what a user's files may pin
 * in the kernel is bounded per user, not only per file, as epoll bounds a
 * user's watches: each user (by real uid, as epoll counts them) has one
 * struct wt_user that all the files it opened charge for their context
 * and their timeout storage, in bytes. A charge beyond the limit (the
 * sysctl dev.wheeltimer.max_user_timeouts, turned into bytes by
 * wt_user_limit_bytes()) fails, except for files opened with
 * CAP_SYS_RESOURCE, which are charged but not held to it.
 */
#ifndef _WHEELTIMER_USER_H
#define _WHEELTIMER_USER_H

#include <linux/types.h>

struct cred;
struct wt_user;

struct wt_user *wt_user_get(const struct cred *cred);
void wt_user_put(struct wt_user *u);
bool wt_user_charge(struct wt_user *u, size_t bytes, bool unlimited);
void wt_user_uncharge(struct wt_user *u, size_t bytes);
size_t wt_user_bytes(const struct wt_user *u);

#endif /* _WHEELTIMER_USER_H */
