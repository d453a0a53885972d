// SPDX-License-Identifier: LGPL-2.1 OR MIT
/*
 * errors.c - names of errors and features, and the library's version
 */
#include <string.h>

#include "internal.h"

const char *wheeltimer_strerror(int error)
{
	int e = error < 0 ? -error : error;

	switch (e) {
	case WHEELTIMER_EFEATURE:
		return "The timer engine lacks a feature this needs";
	case WHEELTIMER_EAPI:
		return "The wheeltimer module speaks no interface version this library knows";
	case WHEELTIMER_EENGINE:
		return "No such timer engine (WHEELTIMER_ENGINE is kernel, process or auto)";
	default:
		return strerror(e);
	}
}

const char *wheeltimer_feature_name(uint64_t feature)
{
	switch (feature) {
	case WHEELTIMER_FEATURE_VIRTUAL_CLOCK:
		return "virtual_clock";
	case WHEELTIMER_FEATURE_PERIODIC:
		return "periodic";
	case WHEELTIMER_FEATURE_SLACK:
		return "slack";
	case WHEELTIMER_FEATURE_EVENTFD:
		return "eventfd";
	case WHEELTIMER_FEATURE_BOOTTIME:
		return "boottime";
	case WHEELTIMER_FEATURE_REALTIME:
		return "realtime";
	default:
		return NULL;
	}
}

int wheeltimer_major_version(void)
{
	return WHEELTIMER_VERSION_MAJOR;
}

int wheeltimer_minor_version(void)
{
	return WHEELTIMER_VERSION_MINOR;
}
