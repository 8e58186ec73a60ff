# SPDX-License-Identifier: GPL-2.0
#
# kunwind top-level Makefile.
#   make [KDIR=...]     build kunwind.ko against a kernel build tree
#   make check          the test command: host tests + KUnit under QEMU, on
#                       the default cells of the release x arch matrix
#                       (RELEASE=6.1|6.12|7.3 and/or ARCH=x86_64|arm64 pick
#                       cells; see scripts/check.sh)
#   make check-matrix   make check on every cell (6.1, 6.12, 7.3 x x86_64, arm64)
#   make demo           boot the test kernel, show tables, rules and an oops trace
#                       (ARCH=arm64: on the arm64 test kernel)
#   make check-stock    Debian's stock kernel (RELEASE=6.1|6.12|7.3, ARCH=)
#                       (ARCH=arm64: its arm64 build, under QEMU)
#   make check-arm64    the arm64 test bed: cross-built kernel, module, QEMU boot
#   make check-reliable kunwind's reliable walks of preempted tasks against the
#                       kernel's, one preempt=full boot (RELEASE=7.3 ARCH=arm64
#                       by default; KERNEL=test|stock)
#   make check-clients  Debian's perf and bpftrace in a guest, every kernel
#                       frame they print checked against the machine code
#                       (RELEASE=6.1|6.12|7.3, ARCH=x86_64|arm64, KERNEL=test|stock)
#   make check-livepatch livepatch enabled and disabled under a load of tasks
#                       preempted and sleeping in the patched function, with
#                       kunwind's reliable hook off and on (RELEASE=7.3
#                       ARCH=x86_64 by default; KERNEL=test|stock)
#   make check-headers  kunwind.ko against Debian's stock header packages
#                       (6.1, 6.12, 7.3; amd64, arm64), without a warning
#   make check-deb      the Debian packages (dpkg-buildpackage, lintian),
#                       installed with apt in Debian 12 and 13 roots: DKMS
#                       builds and signs the module with a test MOK, removal
#   make check-ibt      kunwind under Bochs on a CPU that enforces IBT, with a
#                       negative control (RELEASE=7.3|6.12, KERNEL=stock|test)
#   make lint           checkpatch.pl --strict and sparse on the kernel files
#   make stack-usage    kunwind's deepest stack path per consumer entry
#   make tools          build/kunwind-dump
#   make install-loader kunwind-dump + the udev rule that loads stock-kernel
#                       tables from the debug package (root)
#   make test-host      host unit and differential tests (ASan+UBSan)
#   make fuzz           libFuzzer targets (FUZZ_SECONDS each)
#   make bench-host     host benchmark against readelf
#   make bench          in-guest benchmark against ORC
#                       (ARCH=arm64: against frame records)

include engine.mk

KDIR ?= /lib/modules/$(shell uname -r)/build
B ?= build
FUZZ_SECONDS ?= 10

ENGINE_SRC := $(addprefix module/engine/,$(addsuffix .c,$(KUW_ENGINE)))
ENGINE_HDR := $(wildcard include/kunwind/*.h module/engine/*.h tools/*.h)
DUMP_SRC := tools/kunwind-dump.c tools/load.c tools/dump.c
TOOL_SRC := $(filter-out $(DUMP_SRC),$(wildcard tools/*.c))
TEST_SRC := $(wildcard tests/*.c)

HOST_CFLAGS := -std=gnu11 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-Iinclude/kunwind -Imodule/engine -Itools
SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CC ?= cc

.PHONY: all module clean tools test-host fuzz bench-host check demo check-stock bench \
	check-arm64 check-matrix check-headers check-reliable check-clients lint install-loader \
	check-deb stack-usage check-ibt check-livepatch check-qemu-smc

all module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

$(B)/kunwind-dump: $(DUMP_SRC) $(TOOL_SRC) $(ENGINE_SRC) $(ENGINE_HDR)
	@mkdir -p $(B)
	$(CC) $(HOST_CFLAGS) -O2 -o $@ $(DUMP_SRC) $(TOOL_SRC) $(ENGINE_SRC)

# Static, for guests without a libc (the stock-kernel bed's initramfs).
$(B)/kunwind-dump-static: $(DUMP_SRC) $(TOOL_SRC) $(ENGINE_SRC) $(ENGINE_HDR)
	@mkdir -p $(B)
	$(CC) $(HOST_CFLAGS) -O2 -static -o $@ $(DUMP_SRC) $(TOOL_SRC) $(ENGINE_SRC)

$(B)/kunwind-dump-asan: $(DUMP_SRC) $(TOOL_SRC) $(ENGINE_SRC) $(ENGINE_HDR)
	@mkdir -p $(B)
	$(CC) $(HOST_CFLAGS) -O1 $(SAN) -o $@ $(DUMP_SRC) $(TOOL_SRC) $(ENGINE_SRC)

$(B)/tests/runner: $(TEST_SRC) $(TOOL_SRC) $(ENGINE_SRC) $(ENGINE_HDR) tests/kt.h
	@mkdir -p $(B)/tests
	$(CC) $(HOST_CFLAGS) -Itests -O1 $(SAN) -Wa,--gsframe -o $@ $(TEST_SRC) $(TOOL_SRC) $(ENGINE_SRC)

tools: $(B)/kunwind-dump

install-loader:
	scripts/install-loader.sh

# The runner carries .sframe too (-Wa,--gsframe): tests unwind it.
# Host tests: unit tests (runner), the differential tests against
# binutils, the test bed's result parser (tests/ktap_test.py) and the
# frame checker (tests/framecheck_test.py).  Each
# prints "N passed, N failed"; scripts/check.sh adds them up.
test-host: $(B)/kunwind-dump $(B)/kunwind-dump-asan $(B)/tests/runner
	KT_SRCDIR=tests KT_BUILDDIR=$(B)/tests $(B)/tests/runner
	@if [ -x tests/difftest.sh ]; then B=$(B) tests/difftest.sh; fi
	@if [ -x tests/difftest-tc.sh ]; then B=$(B) tests/difftest-tc.sh; fi
	python3 tests/ktap_test.py
	python3 tests/framecheck_test.py

fuzz:
	B=$(B) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

bench-host: $(B)/kunwind-dump
	B=$(B) tests/bench-host.sh

# ARCH and RELEASE pick the cells; they are handed over under other names
# and removed from the environment and MAKEFLAGS, so that the host tests'
# module builds (x86) do not see ARCH=arm64.
CHECK_ENV = env -u ARCH -u RELEASE -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	KUNWIND_CHECK_ARCH="$(ARCH)" KUNWIND_CHECK_RELEASE="$(RELEASE)"

check:
	@$(CHECK_ENV) scripts/check.sh

check-matrix:
	@$(CHECK_ENV) KUNWIND_MATRIX=1 scripts/check.sh

# ARCH=arm64: the arm64 test kernel (make check-arm64's) instead of x86_64
demo:
	@ARCH=$(ARCH) scripts/demo.sh

# RELEASE=6.1|6.12|7.3 (default 6.1): Debian 12's, Debian 13's or
# trixie-backports' stock kernel; ARCH=arm64: the arm64 one, under
# qemu-system-aarch64.  amd64 boots through UEFI firmware with Secure Boot
# (KUNWIND_STOCK_FIRMWARE=none: directly)
check-stock:
	@ARCH=$(ARCH) KUW_RELEASE=$(or $(RELEASE),$(KUNWIND_RELEASE),6.1) scripts/check-stock.sh

# RELEASE=6.12|7.3: on that release's arm64 test kernel (make check
# RELEASE=... ARCH=arm64 is the same cell).
check-arm64:
	@env -u ARCH -u MAKEFLAGS -u MFLAGS KUW_RELEASE="$(or $(RELEASE),$(KUNWIND_RELEASE),6.1)" scripts/check-arm64.sh

# ARCH=arm64: on the arm64 test kernel, against its frame-record unwinder;
# RELEASE=6.12|7.3: on that release's test kernel
bench:
	@ARCH=$(ARCH) KUW_RELEASE=$(or $(RELEASE),6.1) scripts/bench.sh

check-headers:
	@scripts/check-headers.sh

# KUNWIND_DEB_RELEASES="6.1 6.12" (the default): the releases installed into
check-deb:
	@env -u ARCH -u MAKEFLAGS -u MFLAGS scripts/check-deb.sh

# kunwind on a CPU that enforces IBT (Bochs); RELEASE=7.3 (default) or
# 6.12, KERNEL=stock (default: Debian's amd64 kernel) or test
check-ibt:
	@env -u ARCH -u MAKEFLAGS -u MFLAGS KUW_RELEASE=$(or $(RELEASE),$(KUNWIND_RELEASE),7.3) \
		KUNWIND_IBT_KERNEL=$(or $(KERNEL),stock) scripts/check-ibt.sh

# scripts/guest/reliable.sh in one preempt=full boot; RELEASE (default 7.3),
# ARCH (default arm64), KERNEL=test (default) or stock
check-reliable:
	@ARCH=$(or $(ARCH),arm64) RELEASE=$(or $(RELEASE),7.3) KERNEL=$(or $(KERNEL),test) \
		scripts/check-reliable.sh

# Debian's perf and bpftrace in a guest, consumers switch off and on, every
# frame checked by scripts/framecheck.py; RELEASE (default 6.1), ARCH
# (default x86_64), KERNEL=test (default) or stock
check-clients:
	@ARCH=$(or $(ARCH),x86_64) RELEASE=$(or $(RELEASE),6.1) KERNEL=$(or $(KERNEL),test) \
		scripts/check-clients.sh
# livepatch as the reliable unwinder's client, one preempt=full boot;
# RELEASE (default 7.3), ARCH (default x86_64), KERNEL=test (default) or stock
check-livepatch:
	@ARCH=$(or $(ARCH),x86_64) RELEASE=$(or $(RELEASE),7.3) KERNEL=$(or $(KERNEL),test) \
		scripts/check-livepatch.sh

# Does QEMU keep cross-modified code coherent?  No kunwind: an empty
# ftrace_ops toggled over a running function, under QEMU 7.2 multi- and
# single-threaded and QEMU 10 (docs/testbed.md "The switch guest"); a
# diagnosis, not part of make check
check-qemu-smc:
	@env -u ARCH -u MAKEFLAGS -u MFLAGS scripts/check-qemu-smc.sh

# RELEASE=6.12|7.3, ARCH=arm64: against that test kernel's tree
lint:
	@env -u ARCH -u MAKEFLAGS KUW_RELEASE=$(or $(RELEASE),6.1) \
		KUW_ARCH=$(or $(ARCH),x86_64) scripts/lint.sh

# kunwind's deepest stack path per consumer entry, from the build's call
# graphs (KUW_STACK_MAX bytes at most, default 1024; README "Stack use")
stack-usage:
	@env -u ARCH -u MAKEFLAGS KUW_RELEASE=$(or $(RELEASE),6.1) \
		KUW_ARCH=$(or $(ARCH),x86_64) scripts/stack-usage.sh

clean:
	rm -rf $(B)
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
