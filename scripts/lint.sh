#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make lint: the kernel's own checkers on every kernel file of kunwind.
#
#  1. checkpatch.pl --strict, from the test kernel's source tree, on
#     module/**/*.{c,h}, include/kunwind/*.h, kunit/*.{c,h} and
#     kunit/arch/*/*.h: file mode
#     (-f) and --no-tree, as the files are not in a kernel tree.  No check
#     is ignored: FILE_PATH_CHANGES only fires on patches, and every file
#     has its SPDX line in kernel style.  module/engine/env_host.h is left
#     out: it is the host half of the engine's environment seam (libc
#     types and attributes, for kunwind-dump and the host tests), never
#     compiled into a kernel, so the kernel's type and attribute rules do
#     not apply to it.
#  2. sparse: `make -C $KDIR M=<copy of the repo> C=2 modules` (C=2: every
#     file is checked, built or not), i.e. kunwind.ko and kunit/*.ko
#     against the test kernel; compiler warnings of that build count too.
#  3. kernel internals (scripts/lint-internals.sh, no kernel needed): an
#     unexported kernel function found through kallsyms is called only
#     with kuw_call() (typed from its header, IBT-safe): no cast of a
#     looked-up address, no function pointer typed by hand.
#
# The kernel tree comes from scripts/build-kernel.sh, as for make check
# (built on first use, then reused from the cache), so this works from a
# fresh clone: the test kernel of KUW_RELEASE (make lint RELEASE=7.3; 6.1
# by default) and KUW_ARCH (ARCH=arm64), whose checkpatch.pl and sparse
# rules apply.  Installs sparse (Debian package) when missing, also in the
# Debian root whose compiler builds that release's modules.
#
# Prints each finding as FILE:LINE: ..., then one line of counts; exit
# status 1 on any finding (checkpatch error, warning or check; sparse or
# compiler warning or error) in kunwind's files.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

kuw_deps
kuw_install sparse
root=$(kuw_toolchain_root "$KUW_RELEASE")
if [ -n "$root" ] && [ ! -x "$root/usr/bin/sparse" ]; then
	log "installing sparse in $root"
	cp -f /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	kuw_in_root "$root" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get -qq update &&
		DEBIAN_FRONTEND=noninteractive apt-get -qq install -y --no-install-recommends sparse >/dev/null' ||
		die "could not install sparse in $root"
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-lint.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

KDIR=$("$REPO/scripts/build-kernel.sh")
KSRC=$(cd "$KDIR/source" 2>/dev/null && pwd -P) ||
	die "$KDIR/source: no kernel source tree next to the build"
CP="$KSRC/scripts/checkpatch.pl"
[ -f "$CP" ] || die "$CP not found"

# --- checkpatch ---------------------------------------------------------
cd "$REPO"
files=()
while IFS= read -r f; do
	files+=("$f")
done < <({ find module -name '*.[ch]' ! -path module/engine/env_host.h
	  ls include/kunwind/*.h kunit/*.[ch] kunit/arch/*/*.h; } |
	# sources only: not what a build in the tree left (*.mod.c)
	grep -v '\.mod\.c$' | sort)
log "checkpatch.pl --strict --no-tree -f on ${#files[@]} files (from $KSRC)"
perl "$CP" --strict --no-tree -f --terse --show-types --no-summary \
	"${files[@]}" >"$WORK/checkpatch.out" 2>&1 || true
grep -E '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):' "$WORK/checkpatch.out" \
	>"$WORK/checkpatch" || true
# Anything else it said (a perl error, an unreadable file) is shown too.
grep -v -E '^[^ ]+:[0-9]+: (ERROR|WARNING|CHECK):|^$' "$WORK/checkpatch.out" \
	>"$WORK/checkpatch.other" || true
cat "$WORK/checkpatch" "$WORK/checkpatch.other"
ce=$(grep -c ': ERROR:' "$WORK/checkpatch" || true)
cw=$(grep -c ': WARNING:' "$WORK/checkpatch" || true)
cc=$(grep -c ': CHECK:' "$WORK/checkpatch" || true)
co=$(wc -l <"$WORK/checkpatch.other")

# --- sparse ---------------------------------------------------------------
log "sparse: make -C $KDIR M=<copy> C=2 modules"
# (its own echo of the build's warnings is left out: they are listed below)
kuw_build_modules "$KDIR" "$WORK" C=2 \
	2> >(grep -v -E ': (warning|error): ' >&2) ||
	die "module build failed (above)"
# Findings in our files, paths made relative to the repository; the
# kernel's own headers are not ours to fix (counted apart).
sed -n -E "s|^$WORK/src/||p" "$WORK/modules.log" |
	grep -E '^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error): ' >"$WORK/sparse" || true
grep -E '^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error): ' "$WORK/modules.log" |
	grep -v "^$WORK/src/" >"$WORK/sparse.kernel" || true
cat "$WORK/sparse"
sn=$(wc -l <"$WORK/sparse")
sk=$(wc -l <"$WORK/sparse.kernel")
[ "$sk" = 0 ] || log "note: $sk warnings in the kernel's own files (not counted; see below)"
head -n 5 "$WORK/sparse.kernel" | sed 's/^/    /' >&2

# --- kernel internals ------------------------------------------------------
"$REPO/scripts/lint-internals.sh" >"$WORK/internals" || true
cat "$WORK/internals"
ki=$(grep -c . "$WORK/internals" || true)

total=$((ce + cw + cc + co + sn + ki))
echo "lint: checkpatch $((ce + cw + cc)) ($ce errors, $cw warnings, $cc checks)$([ "$co" = 0 ] || echo ", $co other lines"), sparse/compiler $sn, internals $ki"
[ "$total" = 0 ]
