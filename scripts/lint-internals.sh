#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Part of make lint: kernel functions kunwind and its test modules find
# through kallsyms are called only with kuw_call() (module/kuw_call.h): a
# static call typed from the kernel header that declares the function,
# which x86 makes a direct call (no ENDBR needed at the target: IBT-safe
# with ENDBR tracking on).  Nothing calls a looked-up address indirectly,
# and nothing switches IBT off.  Flags, in module/ and kunit/:
#   - a cast of a looked-up address (kuw_lookup_name(), kt_lookup_name(),
#     a kprobe's addr) to a pointer: a function found is set with
#     kuw_lookup_fn(fn) / kt_lookup_fn(fn) / kuw_set_fn(fn, addr);
#   - kuw_lookup_fn() or kt_lookup_fn() given a string, not the function;
#   - a cast to a function-pointer type, typeof(&...) or a cast through
#     typeof(), or a cast of KUW_FN(), outside module/kuw_call.h;
#   - static calls made by hand (DEFINE_STATIC_CALL*, static_call(),
#     static_call_update()) outside module/kuw_call.h, and KUW_INTERNAL()
#     anywhere but at file scope;
#   - the MSR_IA32_S_CET bracket of old (CET_ENDBR_EN, wrmsr,
#     kuw_arch_call_begin/end): ENDBR tracking is never switched off.
# Prints FILE:LINE: text for each; exit status 1 when any.
set -u
cd "$(dirname "$0")/.." || exit 2
# kunit/ibt_probe.c is the IBT cell's negative control: its one indirect
# call to a sealed kernel function is the point of it.
files=$(find module kunit -name '*.[ch]' ! -name '*.mod.c' ! -name ibt_probe.c | sort)
# shellcheck disable=SC2086 # one word per file
{
	# a cast right before the look-up, on its line or the one before
	perl -0777 -ne 'while (/\([^()]*\)[ \t]*\n?[ \t]*(kuw_lookup_name|kt_lookup_name)\(/g) {
		my ($m, $at) = ($&, $-[0]);
		my $l = 1 + (() = substr($_, 0, $at) =~ /\n/g);
		$m =~ s/\s+/ /g; print "$ARGV:$l: $m\n"; }' $files
	grep -n -E '\([^()]*\*[^()]*\)[[:space:]]*(kp|[a-z_]*probe[a-z_]*)(\.|->)addr' $files
	grep -n -E '(kuw|kt)_lookup_fn\([[:space:]]*"' $files
	grep -n -E 'typeof\(&|\(typeof\([^()]*\)[[:space:]]*\*\)|\)[[:space:]]*(KUW_FN\(|kuw_in_)|\([^()]*\([[:space:]]*\*[[:space:]]*\)[[:space:]]*\([^()]*\)[[:space:]]*\)[[:space:]]*[a-zA-Z_(]' $files |
		grep -v '^module/kuw_call.h:'
	grep -n -E 'DEFINE_STATIC_CALL|static_call(_update|_cond|_mod)?\(' $files |
		grep -v '^module/kuw_call.h:'
	grep -n -E '^[[:space:]]+KUW_INTERNAL\(' $files
	grep -n -E 'MSR_IA32_S_CET|CET_ENDBR_EN|wrmsr|kuw_arch_call_(begin|end)' $files
} | sed 's/$/  (call unexported kernel functions with kuw_call(), module\/kuw_call.h)/' | grep . && exit 1
exit 0
