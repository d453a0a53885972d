// SPDX-License-Identifier: GPL-2.0
/* Placeholder until the wheel core lands: see wheel.h for the contract. */
#include "wheel.h"
