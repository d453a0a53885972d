# SPDX-License-Identifier: GPL-2.0
#
# wheeltimer: everything is driven from here.
#
#   make            build wheeltimer.ko for the running kernel (KDIR= for another)
#   make deps       install every Debian package the targets below need
#   make demo       load the module in a VM and show it at work
#   make check-module  the module and its tests, the library included
#   make check      every test: userspace, then the selftests in VMs (the
#                   list of suites is above CHECKS, below)
#   make lint       checkpatch --strict and sparse
#   make vm CMD=... run a command in a VM with the module loaded (tools/vm)
#   make install    the module, wheelctl, the header, the man pages, the udev
#                   rule; uninstall; dkms-install (tools/install)
#   make wheelctl   build the tool (tools/wheelctl); examples (tools/examples)
#   make lib        build libwheeltimer (tools/lib/wheeltimer); lib-install,
#                   lib-uninstall, check-lib, check-lib-vm
#   make java       build the Java binding (tools/bindings/java) and its
#                   executor; check-java, check-java-vm, check-java-ahc,
#                   bench-java, bench-java-host, bench-java-exec,
#                   bench-java-instructions, bench-java-arm64
#   make scheduler  build the cluster scheduler (tools/scheduler); check-cluster, bench-cluster
#   make stage-lib, stage-java  install libwheeltimer, and the binding, into
#                   build/stage, which the binding and the scheduler build against
#   make bench      the benchmark in the VM (ns under TCG, then instructions
#                   under icount) and natively (tools/bench);
#                   bench-instructions, bench-host, bench-plot, bench-core,
#                   fuzz-core; check-perf, the gate (tools/bench/budgets)
#   make fuzz       trinity and wtfuzz on the debug kernel (tools/fuzz)
#   make check-arm64  the selftests and the library on arm64 (tools/vm)
#   make upstream   the patch series for the kernel tree, in build/upstream
#   make clean      remove every build product and build/
#
# `make`, `make install` and `make dkms-install` never install packages:
# they say what is missing. `make deps` installs what everything needs, and
# the check and VM targets install what they need on first use (tools/deps),
# each package announced before it is installed. The VM boots Debian's
# default kernel for this architecture (tools/vm/kernel-release), and the
# check and VM targets build the module against its headers, in
# $(BUILD)/vm-module. BUILD= moves the build directory, KVM=1 lets the VM
# use KVM.

SHELL	:= /bin/bash

# The one version number is the file VERSION: dkms.conf (stage-source),
# the module (Kbuild), the library, the packages (debian/rules) and
# wheelctl --version (its Makefile) all read it there.

# The kernel `make` builds for: the running one, or the tree KDIR= names.
ifeq ($(origin KDIR),undefined)
KVER	?= $(shell uname -r)
KDIR	:= /lib/modules/$(KVER)/build
else
# (Debian's headers say the upstream version in kernel.release: the
# release modules must match is UTS_RELEASE.)
KVER	?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
		 $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
endif
BUILD	?= $(CURDIR)/build
export BUILD

# The kernel the VM boots and the check targets build against, looked up
# once, when first needed (after tools/deps has installed its headers).
VM_KVER	?= $(eval VM_KVER := $$(shell $(CURDIR)/tools/vm/kernel-release))$(VM_KVER)
VM_KDIR	?= /usr/src/linux-headers-$(VM_KVER)
VM_MOD	:= $(BUILD)/vm-module
VM_KO	:= $(VM_MOD)/module/wheeltimer.ko
MODULE_SOURCES := Kbuild VERSION dkms.conf module/Kbuild \
	$(filter-out %.mod.c,$(wildcard module/*.[ch])) $(wildcard uapi/linux/*.h)

KSRC_TARBALL	:= /usr/src/linux-source-6.1.tar.xz
KSRC		:= $(BUILD)/ksrc
KSFT_OUT	:= $(BUILD)/selftests
KSFT_OUT32	:= $(BUILD)/selftests32
VM		:= $(CURDIR)/tools/vm/run

# The selftests, in the order they run in the VM (module_test reloads the
# module, so it goes first).
KSFT_PROGS	= $(shell $(MAKE) -s --no-print-directory -C selftests/wheeltimer \
			  OUTPUT=$(KSFT_OUT)/wheeltimer print-tests)

DEBUG_TREE	:= $(BUILD)/debug-kernel/linux
DEBUG_MOD	:= $(BUILD)/debug-module

.PHONY: all module vm-module deps ksrc selftests check check-vm check-vm32 \
	check-vm-debug check-kernels selftests32 \
	debug-kernel debug-module demo vm lint checkpatch sparse clean help \
	wheelctl examples check-examples check-demo check-build check-dkms check-deb check-man \
	install uninstall dkms-install check-wheel check-wheel-fuzz \
	fuzz-core bench-core bench bench-instructions bench-host bench-plot \
	check-bench check-perf fuzz \
	check-fuzz \
	lib lib-install lib-uninstall check-lib check-lib-vm \
	java check-java check-java-ahc check-java-vm bench-java bench-java-host \
	bench-java-exec bench-java-instructions bench-java-arm64 \
	arm64-module arm64-selftests arm64-lib check-arm64 \
	scheduler check-cluster bench-cluster upstream \
	check-upstream check-deps check-module stage-lib stage-java

all: module

help:
	@sed -n '1,/^$$/s/^#   //p' Makefile

# Everything the targets need, and the headers of the running kernel if
# Debian has them.
deps:
	@tools/deps all running-headers

# For the running kernel (or KDIR=), in the tree: module/wheeltimer.ko.
module:
	@tools/install/kdir-check "$(KDIR)" "$(KVER)" $(origin KDIR)
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

# For the VM's kernel, from a copy of the sources, warnings being errors:
# what the check and VM targets load. Rebuilt when a source changes.
vm-module:
	@tools/deps build vm-headers
	@$(MAKE) --no-print-directory -s $(VM_KO)

$(VM_KO): $(MODULE_SOURCES)
	@echo "  MODULE  for the VM's kernel $(VM_KVER) in $(VM_MOD)"
	@tools/build-module $(VM_KDIR) $(VM_MOD)

# Kernel source files used at build time, never committed: the checkpatch
# script and the kselftest framework, from Debian's linux-source-6.1.
KSRC_FILES := scripts/checkpatch.pl scripts/spelling.txt \
	scripts/const_structs.checkpatch \
	tools/testing/selftests/lib.mk tools/testing/selftests/kselftest.h \
	tools/testing/selftests/kselftest_harness.h \
	tools/testing/selftests/kselftest/runner.sh \
	tools/testing/selftests/kselftest/prefix.pl

ksrc: $(KSRC)/.stamp
$(KSRC)/.stamp:
	@tools/deps ksrc
	@echo "  EXTRACT kselftest framework and checkpatch from $(KSRC_TARBALL)"
	@mkdir -p $(KSRC)
	@tar -xJf $(KSRC_TARBALL) -C $(KSRC) --strip-components=1 --wildcards \
		$(addprefix linux-source-6.1/,$(KSRC_FILES))
	@cp $(KSRC)/tools/testing/selftests/lib.mk \
		$(KSRC)/tools/testing/selftests/kselftest.h \
		$(KSRC)/tools/testing/selftests/kselftest_harness.h selftests/
	@mkdir -p selftests/kselftest
	@cp $(KSRC)/tools/testing/selftests/kselftest/runner.sh \
		$(KSRC)/tools/testing/selftests/kselftest/prefix.pl \
		selftests/kselftest/
	@touch $@

# Static, so that the busybox initramfs needs no libc.
selftests: ksrc
	@tools/deps build
	@mkdir -p $(KSFT_OUT)/wheeltimer
	$(MAKE) -C selftests/wheeltimer OUTPUT=$(KSFT_OUT)/wheeltimer \
		KHDR_INCLUDES="-isystem $(CURDIR)/uapi" USERLDFLAGS=-static

# The same selftests built for i386, to run on the 64-bit kernel through
# the module's compat_ioctl. The 6.1 harness's pointer comparisons warn
# when pointers are 32 bits wide; that is the framework's, not ours.
selftests32: ksrc
	@tools/deps build cross-i386
	@mkdir -p $(KSFT_OUT32)/wheeltimer
	$(MAKE) -C selftests/wheeltimer OUTPUT=$(KSFT_OUT32)/wheeltimer \
		CC="i686-linux-gnu-gcc -Wno-pointer-to-int-cast" \
		KHDR_INCLUDES="-isystem $(CURDIR)/uapi" USERLDFLAGS=-static

# The wheel core compiled in userspace (tools/testing/wheel): unit tests
# and the model test, then the fuzzer for FUZZ_SECONDS.
WHEEL_TESTS	= $(MAKE) --no-print-directory -C tools/testing/wheel O=$(BUILD)/wheel
FUZZ_SECONDS	?= 60

check-wheel:
	@tools/deps build test
	@echo "== the wheel core in userspace"
	@mkdir -p $(BUILD)
	@set -o pipefail; $(WHEEL_TESTS) check | tee $(BUILD)/check-wheel.log

check-wheel-fuzz:
	@tools/deps build test
	@echo "== the wheel core under libFuzzer for $(FUZZ_SECONDS) s"
	@mkdir -p $(BUILD)
	@echo "# unit: wheel/fuzz" >$(BUILD)/check-wheel-fuzz.log
	@if $(WHEEL_TESTS) fuzz FUZZ_SECONDS=$(FUZZ_SECONDS) >$(BUILD)/wheel-fuzz.out 2>&1; \
	then grep -E 'stat::number_of_executed_units' $(BUILD)/wheel-fuzz.out | \
		sed 's/^/# /' >>$(BUILD)/check-wheel-fuzz.log; \
		echo "ok 1 wheel/fuzz: $(FUZZ_SECONDS) s without a finding" >>$(BUILD)/check-wheel-fuzz.log; \
	else tail -n 40 $(BUILD)/wheel-fuzz.out | sed 's/^/# /' >>$(BUILD)/check-wheel-fuzz.log; \
		echo "not ok 1 wheel/fuzz" >>$(BUILD)/check-wheel-fuzz.log; fi
	@cat $(BUILD)/check-wheel-fuzz.log
	@! grep -q '^not ok' $(BUILD)/check-wheel-fuzz.log

# Longer runs on demand: make fuzz-core FUZZ_SECONDS=3600
fuzz-core:
	@tools/deps build test
	@$(WHEEL_TESTS) fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

bench-core:
	@tools/deps build
	@$(WHEEL_TESTS) bench

# The benchmark (tools/bench): wheeltimer against timerfd and io_uring in
# the VM, in two instruments, one boot each: ns under QEMU's TCG (tables in
# build/bench/results.txt, CSVs in build/bench/), then instructions under
# QEMU's icount (build/bench/icount/); then the host half, and the main
# figures of both side by side (build/bench/summary.txt). QUICK=1 is the
# smoke run of seconds that check runs (TCG only).
bench: vm-module
	@tools/deps build vm bench
	@tools/bench/run $(if $(filter 1,$(QUICK)),--quick)
	@$(if $(filter 1,$(QUICK)),:,tools/bench/run --icount)
	@$(MAKE) --no-print-directory bench-host
	@$(if $(filter 1,$(QUICK)),:,tools/bench/summary)

# The VM half in instructions alone (icount), in build/bench/icount/.
bench-instructions: vm-module
	@tools/deps build vm bench
	@tools/bench/run --icount

# The host half: the wheel core and libwheeltimer's in-process engine
# (tools/bench/host), then WheelTimer against Netty's HashedWheelTimer
# (bench-java-host), natively, where nanoseconds are real.
bench-host: stage-lib
	@tools/deps build bench lib java
	@$(WHEEL_TESTS) $(BUILD)/wheel/bench/bench
	@$(MAKE) --no-print-directory -C tools/bench
	@tools/bench/host
	@$(JAVA_MAKE) bench-host $(if $(filter 1,$(QUICK)),QUICK=1)

bench-plot:
	@tools/deps bench
	@tools/bench/plot

check-bench: vm-module
	@tools/deps build vm bench
	@set -o pipefail; tools/bench/run --quick | tee $(BUILD)/check-bench.log

# The performance gate: instructions counted in the VM (icount) and on the
# host (callgrind) against their budgets in tools/bench/budgets, about a
# minute.
check-perf: vm-module
	@tools/deps build vm bench
	@$(WHEEL_TESTS) $(BUILD)/wheel/bench/bench
	@$(MAKE) --no-print-directory -s -C tools/bench
	@echo "== the performance gate (tools/bench/budgets)"
	@set -o pipefail; tools/bench/gate | tee $(BUILD)/check-perf.log

# Syscall fuzzing on the debug kernel (tools/fuzz): trinity pointed at
# /dev/wheeltimer and wtfuzz, which mutates valid requests and checks every
# answer against what the uapi allows. make fuzz: trinity for 10 minutes
# and a million wtfuzz calls; check-fuzz: the short run make check does.
FUZZ_RUN := $(CURDIR)/tools/fuzz/run

fuzz: debug-module
	@tools/deps build vm fuzz
	@set -o pipefail; $(FUZZ_RUN) --debug --wtfuzz 1000000 \
		--trinity-ops 100000000 --trinity-seconds 600 | tee $(BUILD)/fuzz.log

check-fuzz: debug-module
	@tools/deps build vm fuzz
	@set -o pipefail; $(FUZZ_RUN) --debug --wtfuzz 20000 \
		--trinity-seconds 30 | tee $(BUILD)/check-fuzz.log

# The VM's root holds the kernel's runner and our test programs $(2),
# built in $(1).
vm_selftests = --add selftests/kselftest:/selftests/kselftest \
	--add selftests/wheeltimer/settings:/selftests/wheeltimer/settings \
	$(foreach p,$(2),--add $(1)/wheeltimer/$(p):/selftests/wheeltimer/$(p)) \
	--add tools/vm/ksft-run:/bin/ksft-run \
	-- /bin/ksft-run $(2)
VM_SELFTESTS = $(call vm_selftests,$(KSFT_OUT),$(KSFT_PROGS))

check-vm: vm-module selftests
	@echo "== selftests on Debian's kernel $(VM_KVER)"
	@set -o pipefail; $(VM) $(VM_SELFTESTS) | tee $(BUILD)/check-vm.log

# The i386 build on Debian's kernel only: compat_ioctl is the same code on
# every kernel. attack_test calls nothing the others do not, and would
# only add its half minute.
KSFT_PROGS32	= $(filter-out attack_test,$(KSFT_PROGS))

check-vm32: vm-module selftests32
	@echo "== i386 selftests on Debian's kernel $(VM_KVER)"
	@set -o pipefail; $(VM) $(call vm_selftests,$(KSFT_OUT32),$(KSFT_PROGS32)) | \
		tee $(BUILD)/check-vm32.log

# The debug kernel (KASAN, lockdep, kmemleak, UBSAN, failslab) is built once
# from linux-source-6.12 and cached (rebuilt when its config or the
# installed linux-source-6.12 changes); the module is built against it from
# a copy of the sources, so that the two builds never share objects. The
# upstream series is checked in a copy of the same kernel's tree.
debug-kernel:
	@tools/debug-kernel/build >/dev/null

debug-module: debug-kernel
	@tools/build-module $(DEBUG_TREE) $(DEBUG_MOD)

check-vm-debug: debug-module selftests
	@echo "== selftests on the debug kernel"
	@set -o pipefail; $(VM) --timeout 2400 \
		--kernel $(DEBUG_TREE)/arch/x86/boot/bzImage \
		--module $(DEBUG_MOD)/module/wheeltimer.ko $(VM_SELFTESTS) | \
		tee $(BUILD)/check-vm-debug.log

# The upstream series (tools/upstream): `make upstream` writes it into
# $(BUILD)/upstream, a git format-patch series against linux-source-6.12
# and its cover letter; check-upstream applies it to a pristine tree,
# checkpatches and builds every patch, builds the driver =m and =y in a
# copy of the debug kernel's tree, and runs the selftests installed from
# the tree on the =y kernel (tools/upstream/README.md).
upstream:
	@tools/upstream/make-series $(BUILD)/upstream

check-upstream: debug-kernel
	@echo "== the upstream series, applied, built =m and =y, selftests on =y"
	@mkdir -p $(BUILD)
	@set -o pipefail; tools/upstream/check-series | tee $(BUILD)/check-upstream.log

# Debian's other kernels for this release, fetched (not installed) by
# tools/vm/fetch-kernel: the module is built against each one's headers,
# warnings being errors, and the selftests run on it.
OTHER_KERNELS = 6.12-amd64 6.12-rt-amd64

check-kernels: selftests
	@tools/deps build vm btf
	@: >$(BUILD)/check-kernels.log; status=0; \
	for flavour in $(OTHER_KERNELS); do \
		vars=$$(tools/vm/fetch-kernel $$flavour) || { status=1; continue; }; \
		eval "$$vars"; \
		echo "== selftests on Debian's kernel $$release"; \
		mod=$(BUILD)/kernels/$$release/module; \
		tools/build-module $$kdir $$mod >$(BUILD)/kernels/build.log 2>&1 || { \
			cat $(BUILD)/kernels/build.log; status=1; \
			echo "not ok - the module does not build for $$release" \
				>>$(BUILD)/check-kernels.log; continue; }; \
		set -o pipefail; $(VM) --kernel $$image \
			--module $$mod/module/wheeltimer.ko $(VM_SELFTESTS) | \
			tee -a $(BUILD)/check-kernels.log || status=1; \
	done; exit $$status

# arm64: Debian's arm64 kernel and headers, fetched (never installed) by
# tools/vm/fetch-kernel --arch arm64 through tools/vm/apt-foreign, so
# that no `dpkg --add-architecture` is needed; the module built against
# those headers with this machine's own kbuild (Debian's linux-kbuild is
# Multi-Arch: foreign for cross builds) and the cross compiler; the
# selftests and the library's suite cross-compiled static; all of them run
# in one boot of QEMU's arm64 `virt` machine (tools/vm/run --arch arm64),
# the library's tests first, then every selftest in the order check-vm
# runs them. The time limit only catches a hang: half an hour, twice
# check-vm's, the emulated arm64 guest being the slower one.
ARM64		:= $(BUILD)/arm64
ARM64_CROSS	:= aarch64-linux-gnu-
ARM64_KO	:= $(ARM64)/module/module/wheeltimer.ko

# Rebuilt when a source changes or another kernel release was unpacked.
arm64-module:
	@tools/deps build cross-arm64
	@eval "$$(tools/vm/fetch-kernel --arch arm64 arm64)" && \
	$(MAKE) --no-print-directory -s $(ARM64_KO) ARM64_KDIR=$$kdir \
		ARM64_KREL=$$release

$(ARM64_KO): $(MODULE_SOURCES) $(BUILD)/kernels/$(ARM64_KREL)/unpacked
	@echo "  MODULE  for Debian's arm64 kernel $(ARM64_KREL) in $(ARM64)/module"
	@tools/build-module $(ARM64_KDIR) $(ARM64)/module CROSS_COMPILE=$(ARM64_CROSS)

arm64-selftests: ksrc
	@tools/deps build cross-arm64
	@mkdir -p $(ARM64)/selftests/wheeltimer
	$(MAKE) -C selftests/wheeltimer OUTPUT=$(ARM64)/selftests/wheeltimer \
		CROSS_COMPILE=$(ARM64_CROSS) \
		KHDR_INCLUDES="-isystem $(CURDIR)/uapi" USERLDFLAGS=-static

arm64-lib:
	@tools/deps build lib cross-arm64
	@$(MAKE) --no-print-directory -C tools/lib/wheeltimer O=$(ARM64)/lib \
		CROSS_COMPILE=$(ARM64_CROSS) vm-test

check-arm64: arm64-module arm64-selftests arm64-lib
	@echo "== libwheeltimer's tests and the selftests on Debian's arm64 kernel"
	@set -o pipefail; $(VM) --arch arm64 --timeout 1800 \
		--add selftests/kselftest:/selftests/kselftest \
		--add selftests/wheeltimer/settings:/selftests/wheeltimer/settings \
		$(foreach p,$(KSFT_PROGS),--add $(ARM64)/selftests/wheeltimer/$(p):/selftests/wheeltimer/$(p)) \
		--add tools/vm/ksft-run:/bin/ksft-run \
		--add $(ARM64)/lib/vm/lib_test:/bin/lib_test \
		--add $(ARM64)/lib/vm/outside:/bin/outside \
		--add tools/lib/wheeltimer/tests/run-vm:/bin/run-lib-tests \
		-- sh -c '/bin/run-lib-tests; lib=$$?; /bin/ksft-run "$$@" && [ $$lib = 0 ]' \
		ksft-run $(KSFT_PROGS) | tee $(BUILD)/check-arm64.log

# libwheeltimer (tools/lib/wheeltimer). check-lib: on this machine, which
# has no module: the test suite on the in-process engine, at -O2 and under
# ASan and UBSan, an outside program built with pkg-config against
# `make install`, the exported symbols and the man pages. check-lib-vm: the
# suite, static, in the VM on the kernel engine (compared with the
# in-process one) and on the in-process engine, and the outside program on
# both. lib-install honours DESTDIR, PREFIX and LIBDIR.
LIB_MAKE	= $(MAKE) --no-print-directory -C tools/lib/wheeltimer O=$(BUILD)/lib

lib:
	@tools/deps build lib
	@$(LIB_MAKE)

lib-install: lib
	@$(LIB_MAKE) install

lib-uninstall:
	@$(LIB_MAKE) uninstall

check-lib:
	@tools/deps build lib man
	@echo "== libwheeltimer on this machine"
	@mkdir -p $(BUILD)
	@set -o pipefail; $(LIB_MAKE) check | tee $(BUILD)/check-lib.log

check-lib-vm: vm-module
	@tools/deps build lib vm
	@$(LIB_MAKE) vm-test
	@echo "== libwheeltimer in the VM, on both engines"
	@set -o pipefail; $(VM) --add $(BUILD)/lib/vm/lib_test:/bin/lib_test \
		--add $(BUILD)/lib/vm/outside:/bin/outside \
		--add tools/lib/wheeltimer/tests/run-vm:/bin/run-lib-tests \
		-- /bin/run-lib-tests | tee $(BUILD)/check-lib-vm.log

# The sub-projects build as an outside user's build would, against what
# is installed, never against the tree's internals: the Java binding
# against libwheeltimer found by pkg-config, the cluster scheduler against
# the binding's jar and JNI library. Here each is installed first into
# $(STAGE), a root of its own (DESTDIR, PREFIX=/usr: Debian's layout), by
# its own `install` target, and the sub-project is pointed at it; outside
# the tree they default to the system's install.
STAGE		:= $(BUILD)/stage
# A staged root's layout, for a sub-project's install; and the environment
# that points pkg-config at the root $(1).
STAGE_LAYOUT	:= PREFIX=/usr LIBDIR=/usr/lib INCLUDEDIR=/usr/include \
		   MANDIR=/usr/share/man PKGCONFIGDIR=/usr/lib/pkgconfig
stage_env	= PKG_CONFIG_SYSROOT_DIR=$(1) PKG_CONFIG_LIBDIR=$(1)/usr/lib/pkgconfig
STAGE_LIB_ENV	:= $(call stage_env,$(STAGE))

stage-lib: lib
	@$(MAKE) --no-print-directory -s $(STAGE)/.lib

# Installed again only when something installed changed, so that what
# builds against it is not rebuilt for nothing.
$(STAGE)/.lib: $(BUILD)/lib/libwheeltimer.a $(BUILD)/lib/libwheeltimer.so \
		$(wildcard tools/lib/wheeltimer/include/wheeltimer/*.h \
		tools/lib/wheeltimer/wheeltimer.pc.in tools/lib/wheeltimer/man/*/*)
	@$(LIB_MAKE) install DESTDIR=$(STAGE) $(STAGE_LAYOUT)
	@touch $@

stage-java: stage-lib
	@$(JAVA_MAKE) install DESTDIR=$(STAGE) PREFIX=/usr JAVADIR=/usr/share/java

# The Java binding (tools/bindings/java): WheelTimer, an io.netty.util.Timer
# on libwheeltimer through JNI, and WheelScheduledExecutor, a
# ScheduledExecutorService on it, in $(BUILD)/java; its Makefile lists
# its targets. check-java: on this machine, on the in-process engine, the
# JUnit suites against Netty's HashedWheelTimer and WheelTimer, and
# against ScheduledThreadPoolExecutor and WheelScheduledExecutor, then the
# examples. check-java-vm: in the VM, on the kernel engine, WheelTimer's
# and WheelScheduledExecutor's halves of the suites and the examples, with
# a runtime made by jlink. bench-java: WheelTimer against HashedWheelTimer
# (100 ms and 1 ms ticks), then the executor and AsyncHttpClient
# benchmarks, in one VM boot, on the kernel engine; bench-java-host:
# WheelTimer's benchmark natively on this machine, on the in-process
# engine (build/java/bench-host.txt). QUICK=1 is the smoke run of seconds.
JAVA_MAKE	= $(STAGE_LIB_ENV) $(MAKE) --no-print-directory -C tools/bindings/java \
		  O=$(BUILD)/java

java: stage-lib
	@tools/deps build lib java
	@$(JAVA_MAKE)

check-java: stage-lib
	@tools/deps build lib java
	@echo "== the Java binding on this machine (in-process engine)"
	@mkdir -p $(BUILD)
	@set -o pipefail; $(JAVA_MAKE) check 2>&1 | tee $(BUILD)/check-java.log

# AsyncHttpClient (Debian's) with WheelTimer swapped in by one line:
# 10 000 requests in flight against a local server (tools/bindings/java/ahc),
# then the example, on this machine's in-process engine.
check-java-ahc: stage-lib
	@tools/deps build lib java ahc
	@echo "== AsyncHttpClient with WheelTimer on this machine (in-process engine)"
	@mkdir -p $(BUILD)
	@set -o pipefail; $(JAVA_MAKE) check-ahc 2>&1 | tee $(BUILD)/check-java-ahc.log

check-java-vm: vm-module stage-lib
	@tools/deps build lib java vm
	@$(JAVA_MAKE) vm
	@echo "== the Java binding in the VM (kernel engine)"
	@set -o pipefail; tools/bindings/java/vm check | tee $(BUILD)/check-java-vm.log

bench-java: vm-module stage-lib
	@tools/deps build lib java vm ahc
	@$(JAVA_MAKE) vm-bench
	@tools/bindings/java/vm bench $(if $(filter 1,$(QUICK)),--quick)

# WheelTimer against HashedWheelTimer on each engine, then the executor
# against ScheduledThreadPoolExecutor on the kernel engine, in instructions
# (QEMU's icount, one CPU), in one boot: the figures no host CPU's caches
# move.
bench-java-instructions: vm-module stage-lib
	@tools/deps build lib java vm
	@$(JAVA_MAKE) vm
	@set -o pipefail; tools/bindings/java/vm bench --icount \
		$(if $(filter 1,$(QUICK)),--quick) | tee $(BUILD)/java/bench-instructions.txt

# The same boot in an arm64 guest (tools/bindings/java/vm --arch arm64):
# whether the figures hold on another CPU. Debian's arm64 runtime, and
# libwheeltimer and the JNI library cross-built, libwheeltimer staged in
# $(ARM64)/stage as stage-lib does for this machine; the same jars. Not
# part of make check.
ARM64_STAGE	:= $(ARM64)/stage

bench-java-arm64: arm64-module stage-lib
	@tools/deps build lib java cross-arm64 vm-arm64
	@$(JAVA_MAKE) vm
	@$(MAKE) --no-print-directory -C tools/lib/wheeltimer O=$(ARM64)/lib \
		CROSS_COMPILE=$(ARM64_CROSS) install DESTDIR=$(ARM64_STAGE) $(STAGE_LAYOUT)
	@$(call stage_env,$(ARM64_STAGE)) \
		$(MAKE) --no-print-directory -C tools/bindings/java O=$(ARM64)/java \
		CC=$(ARM64_CROSS)gcc $(ARM64)/java/libwheeltimer_jni.so
	@set -o pipefail; tools/bindings/java/vm --arch arm64 bench --icount \
		$(if $(filter 1,$(QUICK)),--quick) | tee $(ARM64)/java/bench-instructions.txt

# The executor and AsyncHttpClient benchmarks natively, on the in-process
# engine (bench-java runs them in the VM too).
bench-java-exec: stage-lib
	@tools/deps build lib java ahc
	@$(JAVA_MAKE) bench-exec

bench-java-host: stage-lib
	@tools/deps build lib java
	@$(JAVA_MAKE) bench-host $(if $(filter 1,$(QUICK)),QUICK=1)

# The cluster scheduler (tools/scheduler): durable jobs in PostgreSQL,
# each node firing its share through WheelTimer, in $(BUILD)/scheduler;
# its Makefile lists its targets. check-cluster: on this machine
# (in-process engine), against a PostgreSQL 15 server of its own
# (tools/scheduler/pg-run), node JVMs killed, cut off and joining;
# bench-cluster: against Quartz's clustered JDBC job store on the same
# server (BENCH_ARGS=--quick: a smoke run).
SCHEDULER_MAKE	= $(MAKE) --no-print-directory -C tools/scheduler O=$(BUILD)/scheduler \
		  WHEELTIMER_JAR=$(STAGE)/usr/share/java/wheeltimer.jar

scheduler: stage-java
	@tools/deps build lib java cluster
	@$(SCHEDULER_MAKE)

check-cluster: stage-java
	@tools/deps build lib java cluster
	@echo "== the cluster scheduler on PostgreSQL, on this machine (in-process engine)"
	@mkdir -p $(BUILD)
	@set -o pipefail; $(SCHEDULER_MAKE) check 2>&1 | tee $(BUILD)/check-cluster.log

bench-cluster: stage-java
	@tools/deps build lib java cluster quartz
	@$(SCHEDULER_MAKE) run-bench

# make check: lint, then every suite below, each appending to its log in
# $(BUILD); the summary counts the cases of them all. In order:
#   check-wheel        the wheel core and the timer store in userspace:
#                      unit, model and mutant tests (tools/testing/wheel)
#   check-wheel-fuzz   a minute of libFuzzer on the wheel core
#   check-lib          libwheeltimer on this machine: its suite on the
#                      in-process engine, also under ASan and UBSan, an
#                      installed copy used through pkg-config, its exports
#                      and man pages
#   check-vm           the selftests on Debian's kernel (the ioctls and their
#                      errors, clocks, delivery, isolation, threads, stress,
#                      hostile userspace, the limits and their sysctls, time
#                      namespaces, io_uring, processes)
#   check-vm32         the same built for i386 on that kernel (compat_ioctl)
#   check-vm-debug     the same on the debug kernel (KASAN, lockdep, kmemleak,
#                      UBSAN, failslab), built once and cached in $(BUILD)
#   check-upstream     the upstream series applied, checked, built =m and =y,
#                      its selftests on the =y kernel
#   check-kernels      the selftests on Debian's 6.12 and 6.12-rt kernels
#   check-fuzz         trinity and wtfuzz on the debug kernel, briefly
#   check-examples     the examples on both engines, wheeltimer(4)'s program
#                      and wheelctl's test, in the VM
#   check-lib-vm       libwheeltimer's suite in the VM, both engines compared
#   check-java, check-java-ahc, check-java-vm
#                      the Java binding on this machine, AsyncHttpClient
#                      with it, and the binding in the VM
#   check-cluster      the cluster scheduler against PostgreSQL
#   check-demo         the demo: nothing early, lost or twice
#   check-bench        a quick benchmark run
#   check-perf         the performance gate: instruction counts against
#                      tools/bench/budgets
#   check-build, check-dkms
#                      plain `make` for the running kernel, and DKMS
#   check-deb          the Debian packages, built, checked and linted
#   check-man          the manual pages and the Markdown files' links
#   check-arm64        the selftests and the library on Debian's arm64 kernel
#   check-deps         tools/deps and tools/vm/fetch-kernel against stand-ins
#                      for apt
# What runs on the debug kernel comes last: make check builds that kernel
# in the background, at the lowest priority, while the others run.
CHECKS		:= check-wheel check-wheel-fuzz check-lib check-vm \
		   check-vm32 check-kernels check-examples check-lib-vm \
		   check-java check-java-ahc check-java-vm check-cluster check-demo \
		   check-bench check-perf check-build check-dkms check-deb check-man \
		   check-arm64 check-deps check-vm-debug check-upstream check-fuzz

# make check-module: the module and its tests, the library included, for
# whoever changes only module/, uapi/, selftests/ or tools/lib/. It leaves
# to make check what costs the most time or another toolchain: the debug
# kernel (its build alone is about fifteen minutes of both cores) and what
# runs on it (check-vm-debug, check-upstream, check-fuzz), Debian's other
# kernels (check-kernels, check-arm64), the Java binding, the cluster
# scheduler, the benchmark, the packages and tools/deps.
CHECKS_MODULE	:= check-wheel check-wheel-fuzz check-lib check-vm check-vm32 \
		   check-examples check-lib-vm check-demo check-build check-dkms \
		   check-man

# $(1): the suites to run after lint.
run_checks = mkdir -p $(BUILD); rm -f $(BUILD)/check-*.log; \
	status=0; \
	echo "\# unit: lint" >$(BUILD)/check-lint.log; \
	if $(MAKE) --no-print-directory lint; then \
		echo "ok 1 lint" >>$(BUILD)/check-lint.log; \
	else \
		status=1; echo "not ok 1 lint" >>$(BUILD)/check-lint.log; \
	fi; \
	: >$(BUILD)/check.times; \
	for run in $(1); do \
		start=$$(date +%s); \
		$(MAKE) --no-print-directory $$run || { status=1; \
		echo "not ok - $$run: the VM run failed" >>$(BUILD)/$$run.log; }; \
		echo "$$run $$(($$(date +%s) - start)) s" >>$(BUILD)/check.times; \
	done; \
	echo; echo "== time per suite (wall)"; \
	awk '{ printf "%-16s %5d s\n", $$1, $$2; t += $$2 } \
		END { printf "%-16s %5d s\n", "total", t }' $(BUILD)/check.times; \
	echo; echo "== summary"; \
	tools/ksft-summary $(BUILD)/check-*.log || status=1; \
	exit $$status

check:
	@mkdir -p $(BUILD); \
	echo "== the debug kernel builds in the background (nice 19): $(BUILD)/debug-kernel.log"; \
	nice -n 19 tools/debug-kernel/build >$(BUILD)/debug-kernel.log 2>&1 & \
	$(call run_checks,$(CHECKS))

check-module:
	@$(call run_checks,$(CHECKS_MODULE))

# Built by `make install` too, so it installs nothing (gcc and libc6-dev).
wheelctl:
	@$(MAKE) --no-print-directory -C tools/wheelctl

examples:
	@tools/deps build examples
	@$(MAKE) --no-print-directory -C tools/examples

DEMO_VM = --add $(BUILD)/demo/demo:/bin/wheeltimer-demo \
	--add $(BUILD)/wheelctl/wheelctl:/bin/wheelctl \
	--add tools/demo/demo.sh:/bin/demo -- /bin/demo

demo: vm-module wheelctl
	@$(MAKE) --no-print-directory -C tools/demo
	@$(VM) $(DEMO_VM)

# The demo fails if a timeout fired early, was lost or came twice: make
# check runs it too, so that the README's first command cannot rot.
check-demo: vm-module wheelctl
	@$(MAKE) --no-print-directory -C tools/demo
	@echo "== the demo in the VM"
	@echo "# unit: demo" >$(BUILD)/check-demo.log
	@set -o pipefail; if $(VM) --quiet $(DEMO_VM) | tee -a $(BUILD)/check-demo.log; \
	then echo "ok 1 demo" >>$(BUILD)/check-demo.log; \
	else echo "not ok 1 demo" >>$(BUILD)/check-demo.log; exit 1; fi

# The examples, the program of wheeltimer(4) and wheelctl's test in one
# boot; then, on the host, the JSON wheelctl printed there is parsed.
check-examples: vm-module wheelctl examples $(BUILD)/examples/runas
	@tools/deps json
	@$(MAKE) --no-print-directory -C tools/examples manpage
	@echo "== examples and wheelctl in the VM"
	@set -o pipefail; $(VM) --add $(BUILD)/examples:/examples \
		--add $(BUILD)/wheelctl/wheelctl:/bin/wheelctl \
		--add $(BUILD)/examples/runas:/bin/runas \
		--add tools/wheelctl/test-wheelctl:/examples/wheelctl \
		--add tools/examples/manpage:/examples/manpage \
		--add tools/examples/run-examples:/bin/run-examples \
		-- /bin/run-examples | tee $(BUILD)/check-examples.log
	@set -o pipefail; tools/wheelctl/check-json $(BUILD)/check-examples.log | \
		tee $(BUILD)/check-wheelctl-json.log

# test-wheelctl runs ls as another user with it.
$(BUILD)/examples/runas: tools/fuzz/runas.c
	@mkdir -p $(@D)
	@gcc -O2 -Wall -static -o $@ $<

# What a plain `make` does on a real machine, made to happen here: it
# builds for /lib/modules/$(uname -r)/build, says what to install when that
# is missing, and never calls apt-get (tools/install/running-kernel-check).
check-build:
	@tools/deps build vm-headers kmod
	@echo "== make for the running kernel"
	@mkdir -p $(BUILD)
	@set -o pipefail; tools/install/running-kernel-check | tee $(BUILD)/check-build.log

check-dkms:
	@tools/deps build vm-headers install
	@echo "== dkms build against the VM kernel's headers"
	@mkdir -p $(BUILD)
	@set -o pipefail; tools/install/dkms-check | tee $(BUILD)/check-dkms.log

# The Debian packages, built, unpacked, checked, compiled against and
# linted (tools/install/check-deb).
check-deb:
	@tools/deps build deb
	@echo "== the Debian packages"
	@mkdir -p $(BUILD)
	@set -o pipefail; tools/install/check-deb | tee $(BUILD)/check-deb.log

# tools/deps against stand-ins for apt-get: apt's errors passed on, its
# locks waited for; and tools/vm/fetch-kernel --arch against stand-ins for
# apt-get and apt-cache: the release it takes when the archive's
# architectures are out of step. Installs and fetches nothing; about 10 s.
check-deps:
	@echo "== tools/deps, tools/vm/fetch-kernel"
	@mkdir -p $(BUILD)
	@set -o pipefail; { tools/deps-test; deps=$$?; \
		tools/vm/fetch-kernel-test && [ $$deps = 0 ]; } | \
		tee $(BUILD)/check-deps.log

# Every page renders without a warning, and the program of wheeltimer(4)'s
# EXAMPLES compiles with warnings as errors (check-examples runs it); every
# relative link of the Markdown files resolves (tools/check-links).
MAN_PAGES := $(wildcard Documentation/*.[1-8])

check-man:
	@tools/deps build man
	@echo "== the manual pages"
	@mkdir -p $(BUILD)
	@{ for page in $(MAN_PAGES); do \
	    echo "# unit: man/$${page##*/}"; \
	    w=$$(groff -ww -man -Tutf8 $$page 2>&1 >/dev/null); \
	    if [ $$? = 0 ] && [ -z "$$w" ]; then \
		echo "ok 1 $$page renders without warnings"; \
	    else \
		echo "$$w" | sed 's/^/# /'; \
		echo "not ok 1 $$page renders without warnings"; \
	    fi; \
	  done; \
	  echo "# unit: man/example"; \
	  if out=$$($(MAKE) --no-print-directory -C tools/examples manpage 2>&1); then \
		echo "ok 1 the EXAMPLES program of wheeltimer.4 compiles"; \
	  else \
		echo "$$out" | sed 's/^/# /'; \
		echo "not ok 1 the EXAMPLES program of wheeltimer.4 compiles"; \
	  fi; \
	  tools/check-links; } | tee $(BUILD)/check-man.log; \
	! grep -q '^not ok' $(BUILD)/check-man.log

install: module wheelctl
	@KVER=$(KVER) KDIR=$(KDIR) tools/install/install

uninstall:
	@KVER=$(KVER) KDIR=$(KDIR) tools/install/install --uninstall

dkms-install:
	@tools/install/dkms-install

vm: vm-module
	@test -n "$(CMD)" || { echo 'usage: make vm CMD="command in the guest"'; exit 2; }
	@$(VM) -- sh -c '$(CMD)'

lint: checkpatch sparse

# The stand-ins for kernel headers that module/core.c, store.c and wheel.c
# compile against in userspace (libwheeltimer's in-process engine, the
# wheel's tests) have the kernel's own shape: its attribute macros, its
# iterators, its types; they are checked without the rules that shape
# breaks.
LINT_SHIM = $(filter tools/lib/wheeltimer/shim/%,$(LINT_ALL))
# The tracepoints are laid out as the kernel's own TRACE_EVENT headers are,
# which checkpatch only exempts from two layout rules under
# include/trace/events/; here the exemption is said.
LINT_TRACE = module/trace.h
# compat.h is the out-of-tree build's only: it tells kernels apart by
# version, which checkpatch rightly forbids in tree (the patch series of
# `make upstream` has no compat.h).
LINT_COMPAT = module/compat.h
LINT_ALL = $(filter-out %.mod.c,$(wildcard \
		 module/*.c module/*.h uapi/linux/*.h \
		 tools/*/*.[ch] tools/*/*/*.[ch] tools/*/*/*/*.[ch] \
		 tools/*/*/*/*/*.[ch] tools/*/*/*/*/*/*.[ch] \
		 selftests/wheeltimer/*.[ch]))
# libwheeltimer (tools/lib) is userspace C that any program links: its
# types are <stdint.h>'s, not the kernel's u64, and its attributes GCC's,
# not the kernel's macros, so it is checked without PREFER_KERNEL_TYPES
# and PREFER_DEFINED_ATTRIBUTE_MACRO.
LINT_LIB = $(filter-out $(LINT_SHIM),$(filter tools/lib/%,$(LINT_ALL)))
# The Java binding's JNI glue is userspace C too, and JNI's own names
# (JNIEnv, NewDirectByteBuffer, ...) are CamelCase.
LINT_JNI = $(filter tools/bindings/java/%,$(LINT_ALL))
LINT_SOURCES = $(filter-out $(LINT_SHIM) $(LINT_TRACE) $(LINT_COMPAT) $(LINT_LIB) $(LINT_JNI),$(LINT_ALL))

checkpatch: ksrc
	@echo "  CHECKPATCH --strict $(words $(LINT_ALL)) files"
	@perl $(KSRC)/scripts/checkpatch.pl --no-tree --strict --quiet \
		--show-types -f $(LINT_SOURCES)
	@perl $(KSRC)/scripts/checkpatch.pl --no-tree --strict --quiet \
		--show-types --ignore PREFER_DEFINED_ATTRIBUTE_MACRO,PREFER_KERNEL_TYPES,MACRO_ARG_REUSE,MACRO_ARG_PRECEDENCE,CAMELCASE \
		-f $(LINT_SHIM)
	@perl $(KSRC)/scripts/checkpatch.pl --no-tree --strict --quiet \
		--show-types --ignore PARENTHESIS_ALIGNMENT,OPEN_ENDED_LINE \
		-f $(LINT_TRACE)
	@perl $(KSRC)/scripts/checkpatch.pl --no-tree --strict --quiet \
		--show-types --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON \
		-f $(LINT_COMPAT)
	@perl $(KSRC)/scripts/checkpatch.pl --no-tree --strict --quiet \
		--show-types --ignore PREFER_KERNEL_TYPES,PREFER_DEFINED_ATTRIBUTE_MACRO \
		-f $(LINT_LIB)
	@perl $(KSRC)/scripts/checkpatch.pl --no-tree --strict --quiet \
		--show-types --ignore PREFER_KERNEL_TYPES,CAMELCASE -f $(LINT_JNI)

# On the VM module's copy of the sources, with the flags it was built with,
# so that only the checker runs.
sparse: vm-module
	@tools/deps build lint
	@echo "  SPARSE module"
	@$(MAKE) -s -C $(VM_KDIR) M=$(VM_MOD) C=2 W=1 KCFLAGS=-Werror modules 2>&1 | \
		tee $(BUILD)/sparse.log; \
	! grep -E 'warning|error' $(BUILD)/sparse.log

# Kbuild's clean needs a kernel tree; without one the same files go by name.
clean:
	@if [ -e $(KDIR)/Makefile ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; \
	else rm -f module/*.o module/*.ko module/*.mod module/*.mod.c \
		module/.*.cmd module/modules.order .*.cmd modules.order Module.symvers; fi
	rm -rf $(BUILD) selftests/lib.mk selftests/kselftest.h \
		selftests/kselftest_harness.h selftests/kselftest
