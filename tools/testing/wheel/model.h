/* SPDX-License-Identifier: GPL-2.0 */
/*
 * model.h - drives module/wheel.c and a reference timer queue (a binary
 * heap) through the same operations and checks after every step that the
 * wheel keeps its promises. The operations come from a source of bits:
 * a seeded generator for the randomized model test, the input bytes for
 * the libFuzzer target.
 */
#ifndef _WHEEL_TEST_MODEL_H
#define _WHEEL_TEST_MODEL_H

#include "heap.h"
#include "wheel_test.h"

struct model_src {
	const u8 *data;		/* fuzz input, or NULL for the generator */
	size_t len, pos;
	u64 rng;
};

struct model_entry {
	struct wheel_entry we;
	struct heap_node ref;
	/*
	 * The wheel clock at which the entry must be handed out: its tick,
	 * or the clock when it was added if that was later; valid while no
	 * rewind has happened since it was set (@rewinds is then the model's
	 * count of rewinds). After one, it is the later of its tick and the
	 * clock of the last rewind.
	 */
	u64 eff;
	u64 rewinds;
};

enum model_op {
	OP_ADD, OP_CANCEL, OP_MODIFY, OP_ADVANCE, OP_EXPIRE, OP_TICKLESS,
	OP_DRAIN_ONE, OP_REWIND, OP_NR
};

struct model_stats {
	u64 steps, epochs;
	u64 op[OP_NR];
	u64 fired, cancelled, cancel_missed, drained;
	u64 expire_calls, budget_units, partial_drains, full_drains;
	u64 max_units_one_drain;
	u64 checks, watched_calls;
	u64 placed[WHEEL_LEVELS + 1];	/* sampled at white-box checks */
	u64 added[WHEEL_LEVELS + 1];	/* where adds and modifies went */
	u64 near_max_clk;		/* steps with the clock >= 2^63 */
	/* Rewinds that moved the clock, by highest differing digit. */
	u64 rewound[WHEEL_LEVELS];
	u64 rewind_noops, rewind_splices, rewind_max_splices;
	u64 rewind_future_due;	/* due entries a rewind made future */
};

struct model {
	struct wheel w;
	u64 now;
	/* Rewinds that moved the wheel's clock, and the clock of the last. */
	u64 rewinds, rewind_clk;
	struct model_entry *ents;
	u32 nents;
	struct heap ref;
	struct model_src *src;
	struct model_stats st;
	/* Run the white-box walk every this many steps (1: every step). */
	u64 check_every;
	/*
	 * With at most 256 entries, account for the work of every this many
	 * wt_wheel_expire() calls (0: never): where each entry was before and
	 * after, against the budget the call charged.
	 */
	u64 watch_every;
	u16 *loc_before, *loc_after;
};

/* Set by the caller; called with a message on the first violation. */
extern void (*model_fail_hook)(const char *msg);

/* Start an epoch: a fresh wheel at a clock and pool size from the source. */
int model_epoch_begin(struct model *m, struct model_src *src, u32 max_pool);
/* One operation and all the checks after it; false when the source is dry. */
bool model_step(struct model *m);
/* Tear down with wt_wheel_drain() and check that exactly the pending remain. */
void model_epoch_end(struct model *m);

#endif
