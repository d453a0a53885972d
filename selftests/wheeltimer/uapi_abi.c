// SPDX-License-Identifier: GPL-2.0
/*
 * The ABI of <linux/wheeltimer.h>, frozen at compile time.
 *
 * Every struct has the same size and field offsets on 32- and 64-bit
 * targets, and every ioctl number is spelled out, so that a change to the
 * header that would break binaries fails the build. The checks are
 * compile-time assertions: compiling the file for a target is the test.
 * From the top of the tree, with F set to this file:
 *
 *   for m in -m32 -m64; do
 *     clang $m -fsyntax-only -std=c99 -Wall -Wextra -Werror -pedantic \
 *           -DABI_CHECK_ONLY -isystem uapi \
 *           -isystem /usr/include/x86_64-linux-gnu $F
 *   done
 *   g++ -x c++ -std=c++11 -Wall -Wextra -Werror -pedantic -fsyntax-only \
 *       -isystem uapi $F
 *
 * Without 32-bit libraries gcc -m32 has nothing to link:
 * ABI_CHECK_ONLY leaves out main() and <stdio.h>, so that clang needs
 * nothing but the kernel headers (whose asm/ part is the same for i386 and
 * x86-64). Built as a selftest, the file also runs and reports the layout
 * it was compiled with; `make selftests32` builds it, with every other
 * selftest, for i386 (gcc-i686-linux-gnu), to run on the 64-bit kernel.
 */
#include <stddef.h>
#include <linux/wheeltimer.h>

/*
 * A negative array size stops any C or C++ compiler, and the
 * array's name in the error says what broke.
 */
#define ABI_ASSERT(cond, name) extern char abi_##name[(cond) ? 1 : -1]

#define SIZE(type, n) ABI_ASSERT(sizeof(struct type) == (n), type##_size)
#define AT(type, field, n) \
	ABI_ASSERT(offsetof(struct type, field) == (n), type##_##field)

SIZE(wt_api, 32);
AT(wt_api, api, 0);
AT(wt_api, features, 8);
AT(wt_api, ioctls, 16);
AT(wt_api, event_size, 24);
AT(wt_api, batch_max, 28);

SIZE(wt_op, 64);
AT(wt_op, op, 0);
AT(wt_op, reserved, 4);
AT(wt_op, flags, 8);
AT(wt_op, id, 16);
AT(wt_op, deadline, 24);
AT(wt_op, period, 32);
AT(wt_op, slack, 40);
AT(wt_op, cookie, 48);
AT(wt_op, status, 56);
AT(wt_op, error, 60);

SIZE(wt_batch, 24);
AT(wt_batch, ops, 0);
AT(wt_batch, count, 8);
AT(wt_batch, flags, 12);
AT(wt_batch, reserved, 16);

SIZE(wt_config, 40);
AT(wt_config, resolution, 0);
AT(wt_config, max_pending, 8);
AT(wt_config, flags, 16);
AT(wt_config, clockid, 24);
AT(wt_config, reserved, 28);

SIZE(wt_advance, 32);
AT(wt_advance, time, 0);
AT(wt_advance, flags, 8);
AT(wt_advance, now, 16);
AT(wt_advance, expired, 24);

SIZE(wt_eventfd, 8);
AT(wt_eventfd, fd, 0);
AT(wt_eventfd, flags, 4);

SIZE(wt_query, 56);
AT(wt_query, id, 0);
AT(wt_query, flags, 8);
AT(wt_query, state, 16);
AT(wt_query, reserved, 20);
AT(wt_query, deadline, 24);
AT(wt_query, remaining, 32);
AT(wt_query, cookie, 40);
AT(wt_query, period, 48);

SIZE(wt_event, 48);
AT(wt_event, id, 0);
AT(wt_event, cookie, 8);
AT(wt_event, deadline, 16);
AT(wt_event, fired_at, 24);
AT(wt_event, overruns, 32);
AT(wt_event, flags, 40);

SIZE(wt_stats, 136);
AT(wt_stats, size, 0);
AT(wt_stats, context_id, 8);
AT(wt_stats, live, 16);
AT(wt_stats, pending, 24);
AT(wt_stats, ready, 32);
AT(wt_stats, added, 40);
AT(wt_stats, modified, 48);
AT(wt_stats, fired, 56);
AT(wt_stats, delivered, 64);
AT(wt_stats, cancelled, 72);
AT(wt_stats, withdrawn, 80);
AT(wt_stats, overruns, 88);
AT(wt_stats, hrtimer_programs, 96);
AT(wt_stats, hrtimer_expiries, 104);
AT(wt_stats, rewinds, 112);
AT(wt_stats, timer_blocks, 120);
AT(wt_stats, user_timeouts, 128);

/* The command numbers, as binaries built today carry them. */
ABI_ASSERT(WT_IOC_API == 0xC020E700U, WT_IOC_API);
ABI_ASSERT(WT_IOC_SET_CONFIG == 0x4028E701U, WT_IOC_SET_CONFIG);
ABI_ASSERT(WT_IOC_GET_CONFIG == 0x8028E702U, WT_IOC_GET_CONFIG);
ABI_ASSERT(WT_IOC_ADD == 0xC040E703U, WT_IOC_ADD);
ABI_ASSERT(WT_IOC_CANCEL == 0xC040E704U, WT_IOC_CANCEL);
ABI_ASSERT(WT_IOC_MODIFY == 0xC040E705U, WT_IOC_MODIFY);
ABI_ASSERT(WT_IOC_BATCH == 0x4018E706U, WT_IOC_BATCH);
ABI_ASSERT(WT_IOC_ADVANCE == 0xC020E707U, WT_IOC_ADVANCE);
ABI_ASSERT(WT_IOC_SET_EVENTFD == 0x4008E708U, WT_IOC_SET_EVENTFD);
ABI_ASSERT(WT_IOC_QUERY == 0xC038E709U, WT_IOC_QUERY);
ABI_ASSERT(WT_IOC_STATS == 0x8088E70AU, WT_IOC_STATS);

/* Flags that share a field must not overlap. */
ABI_ASSERT(((WT_ABSTIME | WT_FIXED_RATE | WT_FIXED_DELAY) & WT_EVENT_FINAL) == 0,
	   event_flags_overlap);

#ifndef ABI_CHECK_ONLY
#include <stdio.h>

int main(void)
{
	printf("TAP version 13\n1..1\n");
	printf("ok 1 uapi layout: %zu-bit build, wt_op %zu B, wt_event %zu B\n",
	       sizeof(void *) * 8, sizeof(struct wt_op), sizeof(struct wt_event));
	return 0;
}
#endif
