#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make stack-usage: kunwind's deepest stack path from each entry point a
# consumer reaches (README, "Stack use"), measured on the build: kunwind.ko
# against the test kernel of KUW_RELEASE and KUW_ARCH (as make lint) with
# KUW_STACK_INFO=1, so that gcc writes every object's call graph with its
# frame sizes (-fcallgraph-info=su), and the kernel objects that define
# the functions kunwind calls on the walk (ORC, the stack look-up, the
# fault-safe copy, the consumers' fallbacks), compiled again the same way
# into a temporary directory, which scripts/stack_usage.py adds up along
# the deepest path.  Fails when a path is over KUW_STACK_MAX bytes
# (default 1024).
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

#
# Cheap enough for every make check cell (scripts/check.sh,
# scripts/check-arm64.sh): kunwind.ko alone is built (no kunit/), and a
# cell passes its kernel build (KUW_STACK_KDIR) and a directory under its
# own work dir (KUW_STACK_WORK), so that nothing else is built or looked
# up again.
if [ -n "$KUW_STACK_WORK" ]; then
	WORK=$KUW_STACK_WORK
	mkdir -p "$WORK"
else
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-stack.XXXXXX")
	trap 'rm -rf "$WORK"' EXIT
fi
KDIR=${KUW_STACK_KDIR:-$("$REPO/scripts/build-kernel.sh")}
mkdir -p "$WORK/src"
rsync -a --delete --exclude=.git --exclude=/build --exclude=/kunit \
	--exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.ci' \
	"$REPO/" "$WORK/src/"
kuw_kmake "$KDIR" M="$WORK/src" -j"$JOBS" KUW_STACK_INFO=1 modules \
	>"$WORK/modules.log" 2>&1 ||
	{ cat "$WORK/modules.log" >&2; die "module build failed (above)"; }
entries=(kuw_perf_callchain_kernel kuw_stack_trace_save
	kuw_stack_trace_save_tsk kuw_stack_trace_save_regs kuw_die_notify
	kunwind_dump_stack)
case $KUW_ARCH in
arm64) kobjs=(arch/arm64/kernel/stacktrace.o arch/arm64/kernel/perf_callchain.o) ;;
*) kobjs=(arch/x86/kernel/unwind_orc.o arch/x86/kernel/dumpstack_64.o
	arch/x86/kernel/dumpstack.o arch/x86/kernel/stacktrace.o
	arch/x86/events/core.o kernel/extable.o kernel/trace/rethook.o) ;;
esac
# the reliable consumer exists where the kernel has a reliable unwinder
grep -q '^CONFIG_HAVE_RELIABLE_STACKTRACE=y' "$KDIR/.config" &&
	entries+=(kuw_stack_trace_save_tsk_reliable)
kobjs+=(mm/maccess.o kernel/trace/fgraph.o kernel/trace/ftrace.o
	kernel/kprobes.o kernel/locking/spinlock.o kernel/fork.o
	kernel/module/main.o)
rm -rf "$WORK/kernel"
python3 "$REPO/scripts/stack_usage.py" kbuild "$KDIR" "$WORK/kernel" \
	"${kobjs[@]}" || die "kernel objects could not be compiled (above)"
python3 "$REPO/scripts/stack_usage.py" --max "${KUW_STACK_MAX:-1024}" \
	"$WORK/src/module:$WORK/kernel" "${entries[@]}"
