# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0
# KTAP output (Documentation/dev-tools/ktap.rst) for the guest side of the
# test bed, busybox sh.  Sourced as /etc/kuw-ktap.sh by the guests' /init
# (through /etc/kuw-common.sh) and by every scripts/guest/*.sh check; the
# host parses it all with scripts/ktap.py.
#
#   ktap_plan N            "KTAP version 1" and "1..N": a document's first lines
#   ok NAME                "ok <n> NAME", results numbered 1, 2, ...
#   notok NAME             "not ok <n> NAME"
#   skip NAME REASON       "ok <n> NAME # SKIP REASON"
#   diag TEXT              "# TEXT"; without TEXT, each line of stdin
#
# Every line is written with one write() (echo, awk with fflush): /init
# sends its output to /dev/kmsg, where each write is one record.
#   check NAME CMD...      run CMD: ok, or not ok after its output as diagnostics
#   ktap_subtest NAME CMD...   run CMD, a KTAP producer, as a nested test: its
#                          lines indented, any line that is not KTAP made a
#                          diagnostic, then "ok <n> NAME" if it exited 0 and
#                          reported no failure, "not ok <n> NAME" otherwise
#
# NAME must not contain '#' (it would start the directive).  KTAP_PREFIX,
# if set, goes before every line (/init: "kuw-guest: ", which sets guest
# lines apart from kernel messages on the serial console).
ktap_n=0
ktap_line() { echo "${KTAP_PREFIX:-}$*"; }
ktap_plan() {
	ktap_line "KTAP version 1"
	ktap_line "1..$1"
}
diag() {
	if [ $# -gt 0 ]; then
		ktap_line "# $*"
	else
		# one write per line (/init writes to /dev/kmsg: one record each)
		while IFS= read -r ktap_l || [ -n "$ktap_l" ]; do
			ktap_line "# $ktap_l"
		done
	fi
}
ok() {
	ktap_n=$((ktap_n + 1))
	ktap_line "ok $ktap_n $*"
}
notok() {
	ktap_n=$((ktap_n + 1))
	ktap_line "not ok $ktap_n $*"
}
skip() {
	ktap_n=$((ktap_n + 1))
	ktap_line "ok $ktap_n $1 # SKIP ${2:-}"
}
check() {
	ktap_name=$1
	shift
	if ktap_out=$("$@" 2>&1); then
		ok "$ktap_name"
	else
		[ -z "$ktap_out" ] || echo "$ktap_out" | diag
		notok "$ktap_name"
	fi
}
ktap_subtest() {
	ktap_name=$1
	shift
	ktap_t=${TMPDIR:-/tmp}/ktap.$$
	ktap_line "    # Subtest: $ktap_name"
	rm -f "$ktap_t.rc" "$ktap_t.bad"
	{ "$@" 2>&1; echo $? >"$ktap_t.rc"; } |
		awk -v p="${KTAP_PREFIX:-}    " -v bad="$ktap_t.bad" '
		/^not ok / { nbad++ }
		/^(K?TAP version [0-9]|1\.\.[0-9]|ok |not ok |#|[ \t])/ {
			print p $0; fflush(); next
		}
		{ print p "# " $0; fflush() }
		END { print nbad + 0 >bad }'
	ktap_rc=$(cat "$ktap_t.rc" 2>/dev/null || echo "none")
	ktap_bad=$(cat "$ktap_t.bad" 2>/dev/null || echo "?")
	rm -f "$ktap_t.rc" "$ktap_t.bad"
	if [ "$ktap_rc" = 0 ] && [ "$ktap_bad" = 0 ]; then
		ok "$ktap_name"
	else
		diag "$ktap_name: exit status $ktap_rc, $ktap_bad failed"
		notok "$ktap_name"
	fi
}
