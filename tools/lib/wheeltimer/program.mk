# SPDX-License-Identifier: LGPL-2.1 OR MIT
#
# program.mk - how the tree's own programs (the demo, the examples,
# wheelctl, wheelbench) build against libwheeltimer. Include it after
# setting TOP (the top of the tree) and BUILD (the build directory); then:
#
#   $(LIBWT_CPPFLAGS)   finds <wheeltimer/wheeltimer.h>
#   $(LIBWT_LIBS)       links the library: libwheeltimer.a when LDFLAGS has
#                       -static (the VM's busybox root has no libc), else
#                       the shared libwheeltimer.so.MAJOR
#   $(LIBWT_DEP)        a prerequisite that brings the library up to date,
#                       built in $(BUILD)/lib as `make lib` builds it
# (The includer's default goal stays its own.)
LIBWT_GOAL	:= $(.DEFAULT_GOAL)
LIBWT_DIR	:= $(BUILD)/lib
LIBWT_CPPFLAGS	:= -I$(TOP)/tools/lib/wheeltimer/include
LIBWT_STATIC	= $(filter -static,$(LDFLAGS))
LIBWT_LIBS	= $(if $(LIBWT_STATIC),$(LIBWT_DIR)/libwheeltimer.a, \
		  -L$(LIBWT_DIR) -lwheeltimer)
LIBWT_DEP	= $(LIBWT_DIR)/libwheeltimer.$(if $(LIBWT_STATIC),a,so)

# The library's own make decides what is out of date; a program is linked
# again only when that changed the file. (A shared library is never linked
# with -static, whatever the program's LDFLAGS.)
$(LIBWT_DIR)/libwheeltimer.a $(LIBWT_DIR)/libwheeltimer.so: libwt-force
	@$(MAKE) -s --no-print-directory -C $(TOP)/tools/lib/wheeltimer \
		O=$(LIBWT_DIR) LDFLAGS="$(filter-out -static,$(LDFLAGS))" all

.PHONY: libwt-force
libwt-force:

.DEFAULT_GOAL	:= $(LIBWT_GOAL)
