// SPDX-License-Identifier: GPL-2.0
/*
 * wtfuzz - an ioctl fuzzer for /dev/wheeltimer that knows the uapi
 *
 * Each step builds a valid request for a random ioctl (or read()), then
 * mutates some of its fields: random values, flipped bits, the values at
 * the edges (0, 1, KTIME_MAX, KTIME_MAX + 1, U64_MAX), ids that are live,
 * released, never issued or of another generation, counts, sizes and
 * pointers. An oracle written from <linux/wheeltimer.h> alone then says
 * which outcomes the request allows, and the kernel's answer must be one
 * of them: whatever the uapi calls invalid (non-zero reserved fields,
 * unknown flags or operations, out-of-range values, unknown ids) must be
 * refused with its errno, and whatever it calls valid must be accepted.
 *
 * The oracle keeps a model of every file: its configuration, its virtual
 * clock, and its live ids with their cookies and kinds. Ids are released
 * only by reading their final record or cancelling them, both of which
 * the fuzzer does itself, so the model is exact even on real clocks: an
 * id the model holds must be found, one it released must be -ENOENT, a
 * record must belong to a live id and carry its cookie, and max_pending
 * must be enforced to the timeout. Every so often fdinfo's live count and
 * QUERY are compared with the model.
 *
 * usage: wtfuzz [-n COUNT] [-s SEED] [-f FILES] [-v]
 * Exits 0 if the kernel never disagreed with the uapi, 1 otherwise, and
 * prints a summary line: "wtfuzz: N ioctls, ..., V violations".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/wheeltimer.h>

#define DEV		"/dev/wheeltimer"
#define KTIME_MAX	((__u64)INT64_MAX)
#define LIVE_MAX	16384		/* the model's own limit per file */
#define HASH_SIZE	65536		/* > 2 * LIVE_MAX, a power of two */
#define STALE_MAX	512
#define MAX_FILES	8
#define LEASE_MAX	64		/* blocks the model follows per file */
#define ADD_FLAGS	(WT_ABSTIME | WT_FIXED_RATE | WT_FIXED_DELAY | \
			 WT_LEASED_ID)
#define FEATURES	(WT_FEATURE_PERIODIC | WT_FEATURE_SLACK | \
			 WT_FEATURE_EVENTFD | WT_FEATURE_BOOTTIME | \
			 WT_FEATURE_REALTIME | WT_FEATURE_LEASED_IDS | \
			 WT_FEATURE_VIRTUAL_CLOCK)

/* What the oracle allows: a set of errnos, and whether success is one. */
struct expect {
	__u64 errs;		/* bit n: -n is allowed (n < 64) */
	bool ok;
};

#define E(n)		(1ULL << (n))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct live {
	__u64 id;
	__u64 cookie;
	__u64 kind;		/* 0, WT_FIXED_RATE or WT_FIXED_DELAY */
};

struct model {
	int fd;
	bool virtual;
	__u32 clockid;
	__u64 resolution, max_pending, vnow;
	__u64 vmax;		/* the latest the virtual clock has been */
	struct live live[LIVE_MAX];
	unsigned int nlive;
	__s32 hash[HASH_SIZE];	/* id -> index in live[], -1 empty */
	__u64 stale[STALE_MAX];
	unsigned int nstale;
	__u64 max_index;		/* the highest id index seen */
	__u32 lease_first[LEASE_MAX];	/* the leased blocks' first indexes */
	__u32 lease_count;		/* ids per block, from WT_IOC_LEASE */
	unsigned int nleased;
};

static struct model *files[MAX_FILES];
static unsigned int nfiles = 3;
static __u64 rng_state;
static __u64 pending_default, pending_limit;
static bool privileged;
static int efd, notefd;
static char *hole;		/* a PROT_NONE page */
static bool verbose;

static unsigned long n_ioctls, n_reads, n_ok, n_rejected, n_violations;
static unsigned long n_efault, n_enotty, n_checks, n_reopen, n_config;
static unsigned long n_lease, n_leased_add;
static unsigned long by_errno[64];

static __u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static __u64 below(__u64 n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int percent)
{
	return below(100) < percent;
}

static void violation(const char *fmt, ...)
{
	va_list ap;

	n_violations++;
	if (n_violations > 50)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "wtfuzz: VIOLATION: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

/* ------------------------------------------------------------ the model */

static unsigned int hslot(__u64 id)
{
	return (id * 0x9e3779b97f4a7c15ULL) >> 48 & (HASH_SIZE - 1);
}

static int model_find(struct model *m, __u64 id)
{
	unsigned int h = hslot(id);

	while (m->hash[h] >= 0) {
		if (m->live[m->hash[h]].id == id)
			return m->hash[h];
		h = (h + 1) & (HASH_SIZE - 1);
	}
	return -1;
}

static void hash_put(struct model *m, int idx)
{
	unsigned int h = hslot(m->live[idx].id);

	while (m->hash[h] >= 0)
		h = (h + 1) & (HASH_SIZE - 1);
	m->hash[h] = idx;
}

/* Linear probing: empty the id's slot and re-place the rest of its run. */
static void hash_del(struct model *m, __u64 id)
{
	unsigned int h = hslot(id), j;
	int k;

	while (m->live[m->hash[h]].id != id)
		h = (h + 1) & (HASH_SIZE - 1);
	m->hash[h] = -1;
	for (j = (h + 1) & (HASH_SIZE - 1); m->hash[j] >= 0;
	     j = (j + 1) & (HASH_SIZE - 1)) {
		k = m->hash[j];
		m->hash[j] = -1;
		hash_put(m, k);
	}
}

static void hash_move(struct model *m, __u64 id, int to)
{
	unsigned int h = hslot(id);

	while (m->live[m->hash[h]].id != id)
		h = (h + 1) & (HASH_SIZE - 1);
	m->hash[h] = to;
}

static void model_add(struct model *m, __u64 id, __u64 cookie,
		      __u64 kind)
{
	if (model_find(m, id) >= 0)
		violation("ADD returned id %#llx which is still live", id);
	if (m->nlive >= LIVE_MAX)
		abort();
	m->live[m->nlive] = (struct live){ id, cookie, kind };
	hash_put(m, m->nlive++);
	if ((id & 0xffffffff) > m->max_index)
		m->max_index = id & 0xffffffff;
}

static void model_release(struct model *m, int i)
{
	m->stale[m->nstale++ % STALE_MAX] = m->live[i].id;
	hash_del(m, m->live[i].id);
	m->nlive--;
	if (i != (int)m->nlive) {
		m->live[i] = m->live[m->nlive];
		hash_move(m, m->live[i].id, i);
	}
}

/* Whether the index of @id is in a block the file leased. */
static bool model_leased(const struct model *m, __u64 id)
{
	__u32 index = (__u32)id;
	unsigned int i;

	for (i = 0; i < m->nleased; i++)
		if (index >= m->lease_first[i] &&
		    index - m->lease_first[i] < m->lease_count)
			return true;
	return false;
}

/* Whether a live timeout has the index of @id, whatever its generation. */
static bool model_index_live(const struct model *m, __u64 id)
{
	unsigned int i;

	for (i = 0; i < m->nlive; i++)
		if ((__u32)m->live[i].id == (__u32)id)
			return true;
	return false;
}

static void model_reset(struct model *m)
{
	m->virtual = false;
	m->clockid = CLOCK_MONOTONIC;
	m->resolution = WT_RESOLUTION_DEFAULT;
	m->max_pending = pending_default;
	m->vnow = 0;
	m->vmax = 0;
	m->nlive = 0;
	m->nstale = 0;
	m->max_index = 0;
	m->nleased = 0;
	m->lease_count = 0;
	memset(m->hash, 0xff, sizeof(m->hash));
}

static void model_open(struct model *m)
{
	m->fd = open(DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (m->fd < 0) {
		perror(DEV);
		exit(2);
	}
	model_reset(m);
}

static __u64 now_of(struct model *m)
{
	struct timespec ts;

	if (m->virtual)
		return m->vnow;
	clock_gettime(m->clockid, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static __u64 fdinfo_live(int fd)
{
	char path[64], line[256];
	__u64 v = UINT64_MAX;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return v;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "live:", 5))
			v = strtoull(line + 5, NULL, 0);
	fclose(f);
	return v;
}

static __u64 read_param(const char *name, __u64 dflt)
{
	char path[128], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/sys/dev/wheeltimer/%s", name);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] ? strtoull(buf, NULL, 0) : dflt;
}

/* --------------------------------------------------------- the mutator */

static __u64 edge_value(void)
{
	static const __u64 edges[] = {
		0, 1, 2, 63, 64, 1000, 1000000, KTIME_MAX - 1, KTIME_MAX,
		KTIME_MAX + 1, UINT64_MAX, UINT32_MAX, (__u64)UINT32_MAX + 1,
		1ULL << 32, 1ULL << 48, WT_RESOLUTION_MIN - 1,
		WT_RESOLUTION_MAX + 1, WT_BATCH_MAX, WT_BATCH_MAX + 1,
	};

	return edges[below(ARRAY_SIZE(edges))];
}

static __u64 mutate_u64(__u64 v)
{
	switch (below(5)) {
	case 0:
		return rnd();
	case 1:
		return v ^ (1ULL << below(64));
	case 2:
		return edge_value();
	case 3:
		return v + below(5) - 2;
	default:
		return rnd() & ((1ULL << below(64)) - 1);
	}
}

static __u32 mutate_u32(__u32 v)
{
	return (__u32)mutate_u64(v);
}

/* An id for CANCEL, MODIFY and QUERY: mostly live, often not. */
static __u64 pick_id(struct model *m)
{
	__u64 id;

	switch (below(10)) {
	case 0:
		return m->nstale ? m->stale[below(m->nstale < STALE_MAX ?
						 m->nstale : STALE_MAX)] : 0;
	case 1:
		return mutate_u64(m->nlive ? m->live[below(m->nlive)].id : 1);
	case 2:
		/* Never issued: past every index handed out. */
		return (m->max_index + 1 + below(1000)) | (below(4) << 32);
	case 3:
		/* A live index with another generation. */
		if (!m->nlive)
			return 0;
		id = m->live[below(m->nlive)].id;
		return id ^ ((1 + below(0xffff)) << 32);
	default:
		return m->nlive ? m->live[below(m->nlive)].id : 0;
	}
}

static __u64 pick_deadline(struct model *m, bool abs)
{
	__u64 d = below(4) == 0 ? below(20 * 1000000ULL) : below(200000);

	if (abs)
		d += now_of(m);
	return d;
}

/* A valid op of kind @code (ADD, CANCEL or MODIFY) for @m. */
static void valid_op(struct model *m, struct wt_op *op, __u32 code)
{
	memset(op, 0, sizeof(*op));
	op->op = code;
	switch (code) {
	case WT_OP_ADD:
		if (chance(20))
			op->flags |= chance(50) ? WT_FIXED_RATE : WT_FIXED_DELAY;
		if (op->flags)
			op->period = 1000 + below(10000000);
		if (chance(30))
			op->flags |= WT_ABSTIME;
		op->deadline = pick_deadline(m, op->flags & WT_ABSTIME);
		op->slack = chance(20) ? below(5000000) : 0;
		op->cookie = rnd();
		if (m->nleased && chance(40)) {
			/* A leased index, mostly free, with any generation. */
			op->flags |= WT_LEASED_ID;
			op->id = m->lease_first[below(m->nleased)] +
				 below(m->lease_count);
			op->id |= (rnd() & 0xffffffffULL) << 32;
		}
		break;
	case WT_OP_MODIFY:
		op->id = pick_id(m);
		if (chance(30))
			op->flags = WT_ABSTIME;
		op->deadline = pick_deadline(m, op->flags);
		op->slack = chance(20) ? below(5000000) : 0;
		break;
	default:
		op->id = pick_id(m);
		break;
	}
	/* Output fields: their input values must not matter. */
	if (chance(10))
		op->status = rnd();
	if (chance(10))
		op->error = rnd();
}

static void mutate_op(struct wt_op *op)
{
	unsigned int k = 1 + below(3);

	while (k--) {
		switch (below(9)) {
		case 0:
			op->op = chance(50) ? (__u32)below(6) : mutate_u32(op->op);
			break;
		case 1:
			op->reserved = mutate_u32(op->reserved);
			break;
		case 2:
			op->flags = chance(50) ? op->flags ^ (1ULL << below(64)) :
						 mutate_u64(op->flags);
			break;
		case 3:
			op->id = mutate_u64(op->id);
			break;
		case 4:
			op->deadline = mutate_u64(op->deadline);
			break;
		case 5:
			op->period = mutate_u64(op->period);
			break;
		case 6:
			op->slack = mutate_u64(op->slack);
			break;
		case 7:
			op->cookie = mutate_u64(op->cookie);
			break;
		default:
			op->status = rnd();
			op->error = rnd();
			break;
		}
	}
}

/* ------------------------------------------------------------ the oracle */

/*
 * The deadline's check: ERANGE, or not, or either (a real clock moved).
 * The last deadline is the start of the last tick that starts by
 * KTIME_MAX: KTIME_MAX rounded down to the resolution.
 */
static void deadline_oracle(const struct model *m, const struct wt_op *op,
			    __u64 now_lo, __u64 now_hi, struct expect *x,
			    bool *surely_ok)
{
	__u64 last = KTIME_MAX / m->resolution * m->resolution;

	if (op->deadline > last) {
		x->errs |= E(ERANGE);
		*surely_ok = false;
		return;
	}
	if (op->flags & WT_ABSTIME)
		return;
	/* A virtual clock may stand past the last deadline already. */
	if (now_lo > last || op->deadline > last - now_lo) {
		x->errs |= E(ERANGE);
		*surely_ok = false;
	} else if (now_hi > last || op->deadline > last - now_hi) {
		x->errs |= E(ERANGE);
	}
}

/*
 * What the uapi allows for @op applied to @m through @only (the single-op
 * ioctl's code, 0 in a batch). *@code gets the operation it stands for.
 */
static struct expect op_oracle(struct model *m, const struct wt_op *op,
			       __u32 only, __u64 now_lo, __u64 now_hi,
			       __u32 *code)
{
	struct expect x = { 0, false };
	bool ok = true;
	__u64 per;

	*code = op->op ? op->op : only;
	if (op->reserved || (only && *code != only) ||
	    *code < WT_OP_ADD || *code > WT_OP_MODIFY) {
		x.errs |= E(EINVAL);
		return x;
	}
	switch (*code) {
	case WT_OP_ADD:
		per = op->flags & (WT_FIXED_RATE | WT_FIXED_DELAY);
		if (op->flags & ~ADD_FLAGS ||
		    per == (WT_FIXED_RATE | WT_FIXED_DELAY) ||
		    (per ? !op->period || op->period > KTIME_MAX : op->period) ||
		    op->slack > KTIME_MAX) {
			x.errs |= E(EINVAL);
			ok = false;
		}
		if (op->flags & WT_LEASED_ID) {
			if (!model_leased(m, op->id)) {
				x.errs |= E(EINVAL);
				ok = false;
			} else if (model_index_live(m, op->id)) {
				x.errs |= E(EEXIST);
				ok = false;
			}
		}
		deadline_oracle(m, op, now_lo, now_hi, &x, &ok);
		if (m->nlive >= m->max_pending) {
			x.errs |= E(ENOSPC);
			ok = false;
		}
		x.errs |= E(ENOMEM);
		break;
	case WT_OP_CANCEL:
		if (op->flags || op->deadline || op->period || op->slack ||
		    op->cookie) {
			x.errs |= E(EINVAL);
			ok = false;
		}
		if (model_find(m, op->id) < 0) {
			x.errs |= E(ENOENT);
			ok = false;
		}
		break;
	case WT_OP_MODIFY:
		if (op->flags & ~WT_ABSTIME || op->period || op->cookie ||
		    op->slack > KTIME_MAX) {
			x.errs |= E(EINVAL);
			ok = false;
		}
		deadline_oracle(m, op, now_lo, now_hi, &x, &ok);
		if (model_find(m, op->id) < 0) {
			x.errs |= E(ENOENT);
			ok = false;
		}
		break;
	}
	x.ok = ok;
	return x;
}

static void judge(const char *what, struct expect x, int err,
		  const void *req, size_t size)
{
	const __u64 *w = req;
	size_t i;

	if (err < 0 || err >= 64) {
		violation("%s: errno %d out of range", what, err);
		return;
	}
	by_errno[err]++;
	if (err ? x.errs & E(err) : x.ok) {
		if (err)
			n_rejected++;
		else
			n_ok++;
		return;
	}
	violation("%s: got %s (%d); allowed: %s, errno mask %#llx",
		  what, err ? strerror(err) : "success", err,
		  x.ok ? "success" : "no success", x.errs);
	for (i = 0; req && i < size / 8; i++)
		fprintf(stderr, "    word %zu: %#018llx\n", i, w[i]);
}

/* Apply what the kernel reported for a successful @op to the model. */
static void op_applied(struct model *m, const struct wt_op *op, __u32 code,
		       const char *what)
{
	int i;

	switch (code) {
	case WT_OP_ADD:
		if (op->status != WT_STATUS_ADDED || !op->id || op->error)
			violation("%s ADD: status %u error %u id %#llx",
				  what, op->status, op->error, op->id);
		/* The kernel names a timeout in a leased block never. */
		if (!(op->flags & WT_LEASED_ID) && model_leased(m, op->id))
			violation("%s ADD: gave id %#llx of a leased block",
				  what, op->id);
		if (op->flags & WT_LEASED_ID)
			n_leased_add++;
		if (op->id)
			model_add(m, op->id, op->cookie,
				  op->flags & (WT_FIXED_RATE | WT_FIXED_DELAY));
		break;
	case WT_OP_CANCEL:
		if (op->status != WT_STATUS_PENDING &&
		    op->status != WT_STATUS_WITHDRAWN)
			violation("%s CANCEL: status %u", what, op->status);
		i = model_find(m, op->id);
		if (i >= 0)
			model_release(m, i);
		break;
	case WT_OP_MODIFY:
		if (op->status != WT_STATUS_PENDING &&
		    op->status != WT_STATUS_WITHDRAWN)
			violation("%s MODIFY: status %u", what, op->status);
		break;
	}
}

/* @sent is @op as the caller passed it. */
static void op_failed(const struct wt_op *op, const struct wt_op *sent,
		      __u32 code, int err, const char *what)
{
	if (op->status != 0 || op->error != (__u32)err)
		violation("%s: failed with %d but status %u error %u", what,
			  err, op->status, op->error);
	/* A failed ADD answers id 0, or the id the caller named. */
	if (code == WT_OP_ADD &&
	    op->id != (sent->flags & WT_LEASED_ID ? sent->id : 0))
		violation("%s: failed ADD left id %#llx", what, op->id);
}

/* ------------------------------------------------------------- the steps */

static const unsigned long single_cmd[] = {
	0, WT_IOC_ADD, WT_IOC_CANCEL, WT_IOC_MODIFY,
};

static void *maybe_bad_pointer(void *good, bool *bad)
{
	*bad = chance(2);
	if (!*bad)
		return good;
	switch (below(3)) {
	case 0:
		return NULL;
	case 1:
		return hole;
	default:
		return (void *)(uintptr_t)(-4096L - below(4096));
	}
}

static int do_ioctl(int fd, unsigned long cmd, void *arg)
{
	n_ioctls++;
	return ioctl(fd, cmd, arg) < 0 ? errno : 0;
}

static void step_single(struct model *m)
{
	static const char * const names[] = { "", "ADD", "CANCEL", "MODIFY" };
	__u32 only = 1 + below(3), code;
	__u64 now_lo, now_hi;
	struct wt_op op, sent;
	struct expect x;
	bool bad;
	void *p;
	int err;

	valid_op(m, &op, only);
	if (chance(20))
		op.op = 0;	/* "the ioctl's own operation" */
	if (chance(50))
		mutate_op(&op);
	/* Don't let the model outgrow itself. */
	if (m->nlive >= LIVE_MAX - 1 && (op.op ? op.op : only) == WT_OP_ADD)
		return;
	p = maybe_bad_pointer(&op, &bad);
	sent = op;
	now_lo = now_of(m);
	err = do_ioctl(m->fd, single_cmd[only], p);
	now_hi = now_of(m);
	if (bad) {
		x = (struct expect){ E(EFAULT), false };
		judge("single op, bad pointer", x, err, NULL, 0);
		n_efault++;
		return;
	}
	x = op_oracle(m, &sent, only, now_lo, now_hi, &code);
	judge(names[only], x, err, &sent, sizeof(sent));
	if (!err)
		op_applied(m, &op, code, names[only]);
	else
		op_failed(&op, &sent, code, err, names[only]);
}

static void step_batch(struct model *m)
{
	static struct wt_op ops[WT_BATCH_MAX + 8], sent[WT_BATCH_MAX + 8];
	struct wt_batch b = { 0 };
	__u32 count = below(20) ? 1 + below(16) : below(WT_BATCH_MAX + 1);
	__u64 now_lo, now_hi;
	struct expect ox;
	__u32 i, code, ok = 0, applied;
	bool bad;
	void *p;
	int err;

	if (m->nlive + count >= LIVE_MAX - 1)
		count = 1;
	for (i = 0; i < count; i++) {
		valid_op(m, &ops[i], 1 + below(3));
		if (chance(10))
			mutate_op(&ops[i]);
	}
	b.ops = (uintptr_t)ops;
	b.count = count;
	if (chance(5))
		b.flags = mutate_u32(0);
	if (chance(5))
		b.reserved = mutate_u64(0);
	if (chance(3))
		b.count = mutate_u32(b.count);
	if (chance(2))
		b.ops = (uintptr_t)(chance(50) ? (void *)hole : NULL);
	if (b.count <= WT_BATCH_MAX && b.count > count)
		b.count = count;	/* only what we built */
	memcpy(sent, ops, sizeof(ops[0]) * count);
	p = maybe_bad_pointer(&b, &bad);

	now_lo = now_of(m);
	n_ioctls++;
	err = ioctl(m->fd, WT_IOC_BATCH, p);
	err = err < 0 ? errno : (int)(ok = err, 0);
	now_hi = now_of(m);
	if (bad) {
		judge("batch, bad pointer", (struct expect){ E(EFAULT), false },
		      err, NULL, 0);
		n_efault++;
		return;
	}
	if (b.flags || b.reserved || b.count > WT_BATCH_MAX) {
		judge("BATCH header", (struct expect){ E(EINVAL), false }, err,
		      &b, sizeof(b));
		return;
	}
	if (!b.count) {
		judge("BATCH of 0", (struct expect){ 0, true }, err, &b,
		      sizeof(b));
		if (!err && ok)
			violation("BATCH of 0 returned %u", ok);
		return;
	}
	if (b.ops == (uintptr_t)hole || !b.ops) {
		judge("BATCH bad array", (struct expect){ E(EFAULT), false },
		      err, &b, sizeof(b));
		if (err)
			n_efault++;
		return;
	}
	/* ENOMEM for the copy of the array: then nothing happened. */
	judge("BATCH", (struct expect){ E(ENOMEM), true }, err, &b, sizeof(b));
	if (err)
		return;
	applied = 0;
	for (i = 0; i < b.count; i++) {
		ox = op_oracle(m, &sent[i], 0, now_lo, now_hi, &code);
		err = ops[i].error;
		judge("BATCH op", ox, err, &sent[i], sizeof(sent[i]));
		/* What the kernel must not touch. */
		if (ops[i].op != sent[i].op || ops[i].flags != sent[i].flags ||
		    ops[i].deadline != sent[i].deadline ||
		    ops[i].cookie != sent[i].cookie)
			violation("BATCH op %u: input fields changed", i);
		if (!err) {
			op_applied(m, &ops[i], code, "BATCH");
			applied++;
		} else {
			op_failed(&ops[i], &sent[i], code, err, "BATCH");
		}
	}
	if (applied != ok)
		violation("BATCH returned %u but %u ops succeeded", ok, applied);
}

/* Cancel every live timeout in one batch; each must be found. */
static void drain(struct model *m)
{
	static struct wt_op ops[WT_BATCH_MAX];
	struct wt_batch b = { .ops = (uintptr_t)ops };
	unsigned int i;
	int r;

	while (m->nlive) {
		b.count = m->nlive < WT_BATCH_MAX ? m->nlive : WT_BATCH_MAX;
		memset(ops, 0, sizeof(ops[0]) * b.count);
		for (i = 0; i < b.count; i++) {
			ops[i].op = WT_OP_CANCEL;
			ops[i].id = m->live[i].id;
		}
		n_ioctls++;
		r = ioctl(m->fd, WT_IOC_BATCH, &b);
		if (r != (int)b.count)
			violation("%s: cancelled %d of %u live ids (%s)", __func__,
				  r, b.count, r < 0 ? strerror(errno) : "");
		for (i = 0; i < b.count; i++) {
			if (ops[i].error)
				violation("%s: CANCEL of live id %#llx: %s",
					  __func__, ops[i].id,
					  strerror(ops[i].error));
			/* Releases it, whatever the kernel said. */
			op_applied(m, &ops[i], WT_OP_CANCEL, "drain");
		}
		if (r < 0)
			break;
	}
}

static void step_config(struct model *m)
{
	static const __u32 clocks[] = {
		CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME,
	};
	struct wt_config c = { 0 }, g;
	struct expect x = { 0, true };
	unsigned int k;
	bool bad;
	void *p;
	int err;

	/* An empty file, mostly, or SET is -EBUSY. */
	if (m->nlive && chance(80))
		drain(m);
	c.resolution = WT_RESOLUTION_MIN + below(10) * 1000 * below(1000);
	c.max_pending = chance(50) ? 0 : chance(50) ? 1 + below(8) :
						 1 + below(LIVE_MAX - 1);
	c.flags = chance(60) ? WT_CONFIG_VIRTUAL : 0;
	c.clockid = clocks[below(3)];
	if (chance(40)) {
		for (k = 1 + below(2); k--; ) {
			switch (below(5)) {
			case 0:
				c.resolution = mutate_u64(c.resolution);
				break;
			case 1:
				c.max_pending = mutate_u64(c.max_pending);
				break;
			case 2:
				c.flags = mutate_u64(c.flags);
				break;
			case 3:
				c.clockid = chance(50) ? below(16) :
							  mutate_u32(c.clockid);
				break;
			default:
				c.reserved[below(3)] = mutate_u32(0);
				break;
			}
		}
	}
	p = maybe_bad_pointer(&c, &bad);
	err = do_ioctl(m->fd, WT_IOC_SET_CONFIG, p);
	if (bad) {
		judge("SET_CONFIG, bad pointer", (struct expect){ E(EFAULT), false },
		      err, NULL, 0);
		return;
	}
	if (c.reserved[0] || c.reserved[1] || c.reserved[2] ||
	    c.flags & ~WT_CONFIG_VIRTUAL || c.resolution < WT_RESOLUTION_MIN ||
	    c.resolution > WT_RESOLUTION_MAX || c.max_pending > pending_limit ||
	    (c.clockid != CLOCK_MONOTONIC && c.clockid != CLOCK_BOOTTIME &&
	     c.clockid != CLOCK_REALTIME))
		x = (struct expect){ E(EINVAL), false };
	/* Above the default takes a file opened with CAP_SYS_RESOURCE. */
	else if (c.max_pending > pending_default && !privileged)
		x = (struct expect){ E(EPERM), false };
	if (m->nlive) {
		x.errs |= E(EBUSY);
		x.ok = false;
	}
	/* A limit the model cannot follow: accepted, but not used. */
	judge("SET_CONFIG", x, err, &c, sizeof(c));
	if (err)
		return;
	n_config++;
	m->virtual = c.flags & WT_CONFIG_VIRTUAL;
	m->clockid = c.clockid;
	m->resolution = c.resolution;
	m->max_pending = c.max_pending ? c.max_pending : pending_default;
	m->vnow = 0;
	m->vmax = 0;
	if (do_ioctl(m->fd, WT_IOC_GET_CONFIG, &g))
		violation("GET_CONFIG after SET: %s", strerror(errno));
	else if (g.resolution != m->resolution || g.flags != c.flags ||
		 g.clockid != c.clockid || g.max_pending != m->max_pending ||
		 g.reserved[0] || g.reserved[1] || g.reserved[2])
		violation("GET_CONFIG does not return what SET set");
}

static void step_advance(struct model *m)
{
	struct wt_advance a = { 0 };
	struct expect x = { 0, true };
	__u64 target;
	bool bad;
	void *p;
	int err;

	a.time = below(4) ? below(2 * 1000000) : below(100 * 1000000);
	if (chance(10)) {
		a.flags = WT_ADVANCE_SET;
		a.time = m->vnow + below(1000000) - (chance(30) ? 500000 : 0);
	}
	if (chance(20))
		a.time = mutate_u64(a.time);
	if (chance(5))
		a.flags = mutate_u64(a.flags);
	a.now = rnd();
	a.expired = rnd();
	p = maybe_bad_pointer(&a, &bad);
	err = do_ioctl(m->fd, WT_IOC_ADVANCE, p);
	if (bad) {
		judge("ADVANCE, bad pointer", (struct expect){ E(EFAULT), false },
		      err, NULL, 0);
		return;
	}
	if (a.flags & WT_ADVANCE_SET)
		target = a.time;
	else
		target = a.time > UINT64_MAX - m->vnow ? UINT64_MAX :
							  m->vnow + a.time;
	if (a.flags & ~WT_ADVANCE_SET || !m->virtual ||
	    (a.flags & WT_ADVANCE_SET && target < m->vnow &&
	     m->clockid != CLOCK_REALTIME))
		x = (struct expect){ E(EINVAL), false };
	else if (target > KTIME_MAX)
		x = (struct expect){ E(ERANGE), false };
	judge("ADVANCE", x, err, &a, sizeof(a));
	if (err)
		return;
	if (a.now != target)
		violation("ADVANCE: now %llu, expected %llu", a.now, target);
	m->vnow = a.now;
	if (a.now > m->vmax)
		m->vmax = a.now;
}

static void step_eventfd(struct model *m)
{
	struct wt_eventfd e = { 0 };
	struct expect x = { 0, true };
	int err;

	switch (below(5)) {
	case 0:
		e.fd = WT_EVENTFD_NONE;
		break;
	case 1:
		e.fd = notefd;		/* open, not an eventfd */
		x = (struct expect){ E(EINVAL), false };
		break;
	case 2:
		e.fd = chance(50) ? 1000 + below(1000) : 0x80000000U + below(1000);
		x = (struct expect){ E(EBADF), false };
		break;
	default:
		e.fd = efd;
		break;
	}
	if (chance(10)) {
		e.flags = mutate_u32(0);
		if (e.flags) {
			x.errs |= E(EINVAL);
			x.ok = false;
		}
	}
	err = do_ioctl(m->fd, WT_IOC_SET_EVENTFD, &e);
	judge("SET_EVENTFD", x, err, &e, sizeof(e));
}

static void step_query(struct model *m)
{
	struct wt_query q;
	struct expect x = { 0, true };
	int i, err;

	memset(&q, 0, sizeof(q));
	q.id = pick_id(m);
	/* Anything but the id in is refused first. */
	if (chance(10)) {
		q.flags = rnd();
		q.reserved = rnd();
		q.cookie = rnd();
	}
	i = model_find(m, q.id);
	if (q.flags || q.reserved || q.cookie)
		x = (struct expect){ E(EINVAL), false };
	else if (i < 0)
		x = (struct expect){ E(ENOENT), false };
	err = do_ioctl(m->fd, WT_IOC_QUERY, &q);
	judge("QUERY", x, err, &q, sizeof(q));
	if (err || i < 0)
		return;
	if (q.id != m->live[i].id || q.cookie != m->live[i].cookie ||
	    q.flags != m->live[i].kind || q.reserved ||
	    (q.state != WT_STATE_PENDING && q.state != WT_STATE_FIRED) ||
	    !m->live[i].kind != !q.period)
		violation("QUERY %#llx: state %u flags %#llx cookie %#llx",
			  q.id, q.state, q.flags, q.cookie);
}

static void step_api(struct model *m)
{
	struct wt_api a = { .api = WT_API_VERSION };
	struct expect x = { 0, true };
	int err;

	if (chance(30))
		a.api = mutate_u64(a.api);
	if (chance(30))
		a.features = chance(50) ? 1ULL << below(64) : mutate_u64(0);
	/* What the kernel answers in must come in zero. */
	if (chance(10))
		a.ioctls = rnd();
	if (chance(10))
		a.event_size = rnd();
	if (chance(10))
		a.batch_max = rnd();
	if (a.api != WT_API_VERSION || a.features & ~FEATURES || a.ioctls ||
	    a.event_size || a.batch_max)
		x = (struct expect){ E(EINVAL), false };
	err = do_ioctl(m->fd, WT_IOC_API, &a);
	judge("API", x, err, &a, sizeof(a));
	if (err && (a.api || a.features || a.ioctls || a.event_size ||
		    a.batch_max))
		violation("API failed but did not zero the struct");
	if (!err && (a.event_size != sizeof(struct wt_event) ||
		     a.batch_max != WT_BATCH_MAX || a.api != WT_API_VERSION ||
		     a.features != FEATURES))
		violation("API: wrong answer");
}

static void step_lease(struct model *m)
{
	struct wt_lease l = { .first = rnd(), .count = (__u32)rnd() };
	struct expect x = { E(ENOSPC) | E(ENOMEM), true };
	unsigned int i;
	bool bad;
	void *p;
	int err;

	/* The model follows LEASE_MAX blocks: a file leases no more. */
	if (m->nleased == LEASE_MAX)
		return;
	if (chance(10))
		l.flags = mutate_u32(0);
	if (l.flags)
		x = (struct expect){ E(EINVAL), false };
	p = maybe_bad_pointer(&l, &bad);
	err = do_ioctl(m->fd, WT_IOC_LEASE, p);
	if (bad) {
		judge("LEASE, bad pointer", (struct expect){ E(EFAULT), false },
		      err, NULL, 0);
		return;
	}
	judge("LEASE", x, err, &l, sizeof(l));
	if (err)
		return;
	if (!l.count || !l.first || l.first > UINT32_MAX ||
	    (m->lease_count && l.count != m->lease_count))
		violation("LEASE: first %llu count %u", l.first, l.count);
	n_lease++;
	m->lease_first[m->nleased++] = (__u32)l.first;
	m->lease_count = l.count;
	/* A block just leased holds no timeout. */
	for (i = 0; i < m->nlive; i++)
		if ((__u32)m->live[i].id - (__u32)l.first < l.count)
			violation("LEASE: block %llu holds live id %#llx",
				  l.first, m->live[i].id);
}

/* Commands that are not ours: other numbers, sizes, directions, magics. */
static void step_unknown(struct model *m)
{
	static const unsigned long ours[] = {
		WT_IOC_API, WT_IOC_SET_CONFIG, WT_IOC_GET_CONFIG, WT_IOC_ADD,
		WT_IOC_CANCEL, WT_IOC_MODIFY, WT_IOC_BATCH, WT_IOC_ADVANCE,
		WT_IOC_SET_EVENTFD, WT_IOC_QUERY, WT_IOC_STATS, WT_IOC_LEASE,
	};
	static __u64 buf[64];
	unsigned long cmd;
	unsigned int i;
	int err;

	switch (below(4)) {
	case 0:	/* an unassigned number of ours */
		cmd = _IOC(below(4), WT_IOC_MAGIC,
			   _WT_IOC_LEASE + 1 + below(255 - _WT_IOC_LEASE),
			   below(1 << 9));
		break;
	case 1:	/* one of ours with the size or direction changed */
		cmd = ours[below(ARRAY_SIZE(ours))];
		cmd = _IOC(below(4), WT_IOC_MAGIC, _IOC_NR(cmd),
			   _IOC_SIZE(cmd) + 1 + below(64));
		break;
	case 2:
		cmd = ours[below(ARRAY_SIZE(ours))] ^ (1UL << below(32));
		break;
	default:
		cmd = (__u32)rnd();
		break;
	}
	for (i = 0; i < ARRAY_SIZE(ours); i++)
		if (cmd == ours[i])
			return;
	/* WT_IOC_STATS takes any size the caller's struct has. */
	if (_IOC_NR(cmd) == _WT_IOC_STATS && _IOC_DIR(cmd) == _IOC_READ)
		return;
	/* Generic file ioctls (FIONBIO and friends) are the VFS's business. */
	if (_IOC_TYPE(cmd) != WT_IOC_MAGIC)
		return;
	memset(buf, 0, sizeof(buf));
	err = do_ioctl(m->fd, cmd, buf);
	judge("unknown command", (struct expect){ E(ENOTTY), false }, err,
	      &cmd, sizeof(cmd));
	if (err == ENOTTY)
		n_enotty++;
}

static void step_read(struct model *m)
{
	static struct wt_event ev[256];
	size_t size;
	ssize_t r;
	unsigned int n, i;
	int k;

	switch (below(6)) {
	case 0:
		size = below(sizeof(ev[0]));
		break;
	case 1:
		size = sizeof(ev[0]) * (1 + below(4)) + 1 + below(47);
		break;
	default:
		size = sizeof(ev[0]) * (1 + below(256));
		break;
	}
	n_reads++;
	r = read(m->fd, ev, size);
	if (size < sizeof(ev[0])) {
		judge("read, short buffer", (struct expect){ E(EINVAL), false },
		      r < 0 ? errno : 0, NULL, 0);
		return;
	}
	if (r < 0) {
		judge("read", (struct expect){ E(EAGAIN), false }, errno, NULL,
		      0);
		return;
	}
	n_ok++;
	if (r % sizeof(ev[0]) || !r || (size_t)r > size)
		violation("read returned %zd for %zu bytes", r, size);
	n = r / sizeof(ev[0]);
	for (i = 0; i < n; i++) {
		k = model_find(m, ev[i].id);
		if (k < 0) {
			violation("read: record of id %#llx, not live",
				  ev[i].id);
			continue;
		}
		if (ev[i].cookie != m->live[k].cookie ||
		    ev[i].fired_at < ev[i].deadline ||
		    (ev[i].flags & ~WT_EVENT_FINAL) != m->live[k].kind ||
		    (!m->live[k].kind && !(ev[i].flags & WT_EVENT_FINAL)) ||
		    (m->live[k].kind != WT_FIXED_RATE && ev[i].overruns))
			violation("read: bad record %#llx %#llx %llu %llu %#llx",
				  ev[i].id, ev[i].cookie, ev[i].deadline,
				  ev[i].fired_at, ev[i].flags);
		/* A CLOCK_REALTIME virtual clock may have been set back since. */
		if (m->virtual && ev[i].fired_at > m->vmax)
			violation("read: fired at %llu, clock never past %llu",
				  ev[i].fired_at, m->vmax);
		if (ev[i].flags & WT_EVENT_FINAL)
			model_release(m, k);
	}
}

/* fdinfo and QUERY against the model. */
static void check_file(struct model *m)
{
	struct wt_query q;
	__u64 live = fdinfo_live(m->fd);
	unsigned int i;

	n_checks++;
	if (live != m->nlive)
		violation("fdinfo live %llu, the model holds %u", live,
			  m->nlive);
	for (i = 0; i < m->nlive && i < 64; i++) {
		memset(&q, 0, sizeof(q));
		q.id = m->live[below(m->nlive)].id;
		if (ioctl(m->fd, WT_IOC_QUERY, &q))
			violation("QUERY of live id %#llx: %s", q.id,
				  strerror(errno));
	}
	for (i = 0; i < m->nstale && i < STALE_MAX && i < 16; i++) {
		memset(&q, 0, sizeof(q));
		q.id = m->stale[i];
		if (!ioctl(m->fd, WT_IOC_QUERY, &q) || errno != ENOENT)
			violation("QUERY of released id %#llx found it",
				  m->stale[i]);
	}
}

static void step(struct model *m)
{
	unsigned int r = below(100);

	/* A full model only drains. */
	if (m->nlive > LIVE_MAX / 2 && r < 40)
		r = 90 + below(10);
	if (r < 25)
		step_single(m);
	else if (r < 40)
		step_batch(m);
	else if (r < 45)
		step_config(m);
	else if (r < 60)
		step_advance(m);
	else if (r < 63)
		step_eventfd(m);
	else if (r < 70)
		step_query(m);
	else if (r < 71)
		step_api(m);
	else if (r < 72)
		step_lease(m);
	else if (r < 77)
		step_unknown(m);
	else
		step_read(m);
}

int main(int argc, char **argv)
{
	unsigned long count = 20000, i, next_report;
	__u64 seed = 0;
	unsigned int f;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:f:v")) != -1) {
		switch (opt) {
		case 'n':
			count = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'f':
			nfiles = atoi(optarg);
			if (nfiles < 1 || nfiles > MAX_FILES)
				nfiles = 3;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr, "usage: %s [-n COUNT] [-s SEED] [-f FILES] [-v]\n",
				argv[0]);
			return 2;
		}
	}
	if (!seed)
		seed = (__u64)time(NULL) ^ (__u64)getpid() << 32;
	/* Nearby seeds must not give nearby streams. */
	rng_state = (seed + 1) * 0x9e3779b97f4a7c15ULL ^ 0xd1b54a32d192ed03ULL;
	if (!rng_state)
		rng_state = 1;
	for (i = 0; i < 8; i++)
		rnd();
	printf("wtfuzz: seed %#llx, %lu ioctls on %u files\n", seed,
	       count, nfiles);
	fflush(stdout);

	/* What a file opened now may ask for beyond max_pending. */
	privileged = !geteuid();
	pending_default = read_param("max_pending", 1 << 20);
	pending_limit = read_param("max_pending_limit", 1 << 24);
	if (pending_limit > UINT32_MAX)
		pending_limit = UINT32_MAX;
	if (pending_default > pending_limit)
		pending_default = pending_limit;
	efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	notefd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	hole = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (efd < 0 || notefd < 0 || hole == MAP_FAILED) {
		perror("wtfuzz: setup");
		return 2;
	}
	for (f = 0; f < nfiles; f++) {
		files[f] = calloc(1, sizeof(*files[f]));
		if (!files[f])
			return 2;
		model_open(files[f]);
	}

	next_report = count / 10;
	for (i = 0; n_ioctls + n_reads < count; i++) {
		struct model *m = files[below(nfiles)];

		step(m);
		if (i % 997 == 0)
			check_file(m);
		if (chance(1) && chance(5)) {
			/* Close with whatever it holds, and start over. */
			close(m->fd);
			model_open(m);
			n_reopen++;
		}
		if (verbose && n_ioctls + n_reads >= next_report) {
			printf("wtfuzz: %lu calls, %lu violations\n",
			       n_ioctls + n_reads, n_violations);
			fflush(stdout);
			next_report += count / 10;
		}
	}
	for (f = 0; f < nfiles; f++) {
		check_file(files[f]);
		close(files[f]->fd);
	}

	printf("wtfuzz: answers: %lu accepted, %lu refused: EINVAL %lu, ERANGE %lu,",
	       n_ok, n_rejected, by_errno[EINVAL], by_errno[ERANGE]);
	printf(" ENOENT %lu, ENOSPC %lu, EBUSY %lu, EBADF %lu, EFAULT %lu,",
	       by_errno[ENOENT], by_errno[ENOSPC], by_errno[EBUSY],
	       by_errno[EBADF], by_errno[EFAULT]);
	printf(" ENOTTY %lu, EAGAIN %lu, ENOMEM %lu, EEXIST %lu\n",
	       by_errno[ENOTTY], by_errno[EAGAIN], by_errno[ENOMEM],
	       by_errno[EEXIST]);
	printf("wtfuzz: %lu leases, %lu adds of leased ids\n", n_lease,
	       n_leased_add);
	printf("wtfuzz: %lu configurations, %lu consistency checks, %lu reopens\n",
	       n_config, n_checks, n_reopen);
	printf("wtfuzz: %lu ioctls + %lu reads, %lu violations\n", n_ioctls,
	       n_reads, n_violations);
	return n_violations ? 1 : 0;
}
