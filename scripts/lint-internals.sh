#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Part of make lint: kernel functions kunwind and its test modules find
# through kallsyms are called only with kuw_call() (module/kuw_arch.h),
# which types the call from the kernel header that declares the function
# and makes it safe from x86 IBT (an indirect call to a sealed function
# is a control-protection fault).  Flags, in module/ and kunit/:
#   - a cast of a looked-up address (kuw_lookup_name(), kuw_lookup_fn(),
#     kt_lookup_name(), a kprobe's addr) to anything: the address goes to
#     KUW_FN(name), an unsigned long;
#   - kuw_lookup_fn() whose result does not go to KUW_FN();
#   - a pointer typed with typeof() or a cast of KUW_FN() outside
#     kuw_call() itself.
# Prints FILE:LINE: text for each; exit status 1 when any.
set -u
cd "$(dirname "$0")/.." || exit 2
files=$(find module kunit -name '*.[ch]' ! -name '*.mod.c' | sort)
# shellcheck disable=SC2086 # one word per file
{
	# a cast right before the look-up, on its line or the one before
	perl -0777 -ne 'while (/\([^()]*\)[ \t]*\n?[ \t]*(kuw_lookup_(name|fn)|kt_lookup_name)\(/g) {
		my ($m, $at) = ($&, $-[0]);
		my $l = 1 + (() = substr($_, 0, $at) =~ /\n/g);
		$m =~ s/\s+/ /g; print "$ARGV:$l: $m\n"; }' $files
	grep -n -E '\([^()]*\*[^()]*\)[[:space:]]*(kp|[a-z_]*probe[a-z_]*)(\.|->)addr' $files
	grep -n -E 'kuw_lookup_fn\(' $files | grep -v -E 'KUW_FN\(|kuw_lookup_fn\(const char|^[^:]+:[0-9]+:[[:space:]]*\*' |
		while IFS=: read -r f l _; do
			# KUW_FN(x) =\n\t\tkuw_lookup_fn(...) is fine
			sed -n "$((l - 1))p" "$f" | grep -q 'KUW_FN(' ||
				echo "$f:$l: $(sed -n "${l}p" "$f")"
		done
	grep -n -E 'typeof\(&|\(typeof\([^()]*\)[[:space:]]*\*\)|\)[[:space:]]*(KUW_FN\(|kuw_fn_)' $files |
		grep -v '^module/kuw_arch.h:'
} | sed 's/$/  (call unexported kernel functions with kuw_call())/' | grep . && exit 1
exit 0
