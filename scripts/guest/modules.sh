#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Modules loaded after kunwind get their tables from the module_finalize
# kprobe (module/modules.c), which takes the function's arguments from
# registers only when they check out as load_module()'s (kuw_finalize_args()).
# Real loads must pass: every KUnit suite module /init loaded after kunwind
# (kunit/*_test.ko) has tables, each from "kprobe" in debugfs kunwind/tables
# (not "sysfs", the path taken when the arguments are refused), and no
# refusal was logged.
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
ktap_plan 2
F=/sys/kernel/debug/kunwind/tables
n=0 bad=""
for m in /sys/module/*_test; do
	[ -d "$m" ] || continue
	m=${m##*/}
	ln=$(grep -c "^$m " $F)
	kp=$(grep -c "^$m .* kprobe$" $F)
	n=$((n + 1))
	[ "$ln" -gt 0 ] && [ "$ln" = "$kp" ] || bad="$bad $m($kp of $ln)"
done
if [ "$n" -gt 0 ] && [ -z "$bad" ]; then
	ok "the tables of $n test modules loaded after kunwind are the kprobe's"
elif [ "$n" = 0 ]; then
	skip "the tables of test modules loaded after kunwind are the kprobe's" "no */_test module loaded"
else
	grep '_test ' $F | diag
	notok "the tables of test modules loaded after kunwind are the kprobe's:$bad"
fi
r=$(dmesg | grep -v 'kuw-guest: ' | grep -c 'kunwind: module_finalize kprobe: arguments refused')
if [ "$r" = 0 ]; then
	ok "no module_finalize kprobe arguments refused"
else
	dmesg | grep -v 'kuw-guest: ' | grep 'kunwind: module_finalize kprobe' | diag
	notok "no module_finalize kprobe arguments refused ($r)"
fi
