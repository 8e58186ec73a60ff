#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make stack-usage: kunwind's deepest stack path from each entry point a
# consumer reaches (README, "Stack use"), measured on the build: kunwind.ko
# against the test kernel of KUW_RELEASE and KUW_ARCH (as make lint) with
# KUW_STACK_INFO=1, so that gcc writes every object's call graph with its
# frame sizes (-fcallgraph-info=su), which scripts/stack_usage.py adds up
# along the deepest path.  Fails when a path is over KUW_STACK_MAX bytes
# (default 2304).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-stack.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
KDIR=$("$REPO/scripts/build-kernel.sh")
kuw_build_modules "$KDIR" "$WORK" KUW_STACK_INFO=1 ||
	die "module build failed (above)"
python3 "$REPO/scripts/stack_usage.py" --max "${KUW_STACK_MAX:-2304}" \
	"$WORK/src/module" kuw_perf_callchain_kernel kuw_stack_trace_save \
	kuw_stack_trace_save_tsk kuw_stack_trace_save_regs \
	kuw_stack_trace_save_tsk_reliable
