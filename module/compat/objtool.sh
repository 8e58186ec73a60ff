#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# objtool for kunwind's objects (module/compat/compat.mk):
#   objtool.sh OBJTOOL ARG... OBJECT
# runs the kernel's objtool with its own arguments and passes its output
# through, except one report that is wrong for objects built with unwind
# tables on purpose: "<obj>: warning: objtool: .eh_frame+0x..: data
# relocation to !ENDBR: <func>" (and the same for .sframe).  An FDE's start
# address is data that no code branches through, and GCC puts ENDBR only on
# functions that may be called indirectly.  Everything objtool writes into
# the object stays as it is.
#
# With --werror (CONFIG_OBJTOOL_WERROR) objtool would fail on those reports
# and leave the object unannotated: it runs without --werror here, and the
# reports that remain fail the build as --werror would.
real=$1
shift
werror=
n=$#
while [ "$n" -gt 0 ]; do
	a=$1
	shift
	n=$((n - 1))
	if [ "$a" = --werror ]; then
		werror=1
	else
		set -- "$@" "$a"
	fi
done
out=$("$real" "$@" 2>&1)
rc=$?
left=$(printf '%s\n' "$out" | grep -v -E \
	': warning: objtool: \.(eh_frame|sframe)\+0x[0-9a-f]+: data relocation to !ENDBR: ' |
	grep -v '^$')
[ -z "$left" ] || printf '%s\n' "$left" >&2
if [ -n "$werror" ] && [ "$rc" = 0 ] && printf '%s\n' "$left" | grep -q 'warning: objtool:'; then
	rc=1
fi
exit "$rc"
