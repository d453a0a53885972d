// SPDX-License-Identifier: GPL-2.0
/*
 * user.c - what each user's wheeltimer files hold together
 *
 * See user.h. The users with a file open are kept in a small hash table,
 * found by real uid at open() and let go at the last close; the charges in
 * between touch only the user's own counter, once per block of timeouts
 * (85 of them), not once per timeout.
 */
#include <linux/atomic.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>

#include "ctx.h"
#include "user.h"

/**
 * struct wt_user - one user with wheeltimer files open
 * @node: in wt_users
 * @uid: the user's real uid
 * @files: its open files, each holding a reference
 * @bytes: the memory charged by those files
 */
struct wt_user {
	struct hlist_node node;
	kuid_t uid;
	refcount_t files;
	atomic_long_t bytes;
};

/* Protects wt_users, every user's @node, and @files reaching 0. */
static DEFINE_SPINLOCK(wt_users_lock);
static DEFINE_HASHTABLE(wt_users, 7);

static struct wt_user *wt_user_find(kuid_t uid)
{
	struct wt_user *u;

	lockdep_assert_held(&wt_users_lock);
	hash_for_each_possible(wt_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/**
 * wt_user_get() - the user behind @cred, with one more file
 * @cred: the opener's credentials
 *
 * Return: the user, or NULL if memory ran out.
 */
struct wt_user *wt_user_get(const struct cred *cred)
{
	struct wt_user *u, *new;

	spin_lock(&wt_users_lock);
	u = wt_user_find(cred->uid);
	if (u)
		refcount_inc(&u->files);
	spin_unlock(&wt_users_lock);
	if (u)
		return u;

	new = kzalloc(sizeof(*new), GFP_KERNEL_ACCOUNT);
	if (!new)
		return NULL;
	new->uid = cred->uid;
	refcount_set(&new->files, 1);
	atomic_long_set(&new->bytes, 0);
	spin_lock(&wt_users_lock);
	/* Another file of the same user may have come first. */
	u = wt_user_find(cred->uid);
	if (u) {
		refcount_inc(&u->files);
	} else {
		hash_add(wt_users, &new->node, __kuid_val(new->uid));
		u = new;
		new = NULL;
	}
	spin_unlock(&wt_users_lock);
	kfree(new);
	return u;
}

/* Let go of one file's reference to @u, which has uncharged everything. */
void wt_user_put(struct wt_user *u)
{
	bool last;

	spin_lock(&wt_users_lock);
	last = refcount_dec_and_test(&u->files);
	if (last)
		hash_del(&u->node);
	spin_unlock(&wt_users_lock);
	if (!last)
		return;
	WARN_ON_ONCE(atomic_long_read(&u->bytes));
	kfree(u);
}

/**
 * wt_user_charge() - charge @bytes to @u
 * @u: the user
 * @bytes: what a file is about to allocate
 * @unlimited: the file was opened with CAP_SYS_RESOURCE
 *
 * Return: false, with nothing charged, if the user's files would then hold
 * more than the limit and @unlimited is false.
 */
bool wt_user_charge(struct wt_user *u, size_t bytes, bool unlimited)
{
	long total = atomic_long_add_return(bytes, &u->bytes);

	if (!unlimited && (unsigned long)total > wt_user_limit_bytes()) {
		atomic_long_sub(bytes, &u->bytes);
		return false;
	}
	return true;
}

void wt_user_uncharge(struct wt_user *u, size_t bytes)
{
	atomic_long_sub(bytes, &u->bytes);
}

size_t wt_user_bytes(const struct wt_user *u)
{
	return atomic_long_read(&u->bytes);
}
