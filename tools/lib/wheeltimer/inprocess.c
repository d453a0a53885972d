// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * inprocess.c - the in-process engine in one translation unit: the
 * module's wheel, store and core (module/wheel.c, store.c, core.c),
 * compiled unchanged, and their driver (engine_process.c)
 *
 * Each operation crosses the driver, the core, the store and the wheel, a
 * few instructions of work in each. As separate objects, every crossing
 * is a call the compiler cannot see through; as one unit, it inlines the
 * small ones (the core's entry points into their bodies, the wheel's add
 * and delete, the driver's answers to the core), with the rules written
 * once, where they are.
 */
#include "wheel.c"
#include "store.c"
#include "core.c"
#include "engine_process.c"
