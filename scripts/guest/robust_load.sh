#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# debugfs kunwind/load fuzzed from userspace (issue 6), and the debugfs
# files closed to non-root.  busybox sh, run by scripts/init/check.sh after
# the test modules are loaded; reports KTAP (/etc/kuw-ktap.sh: 3 results)
# and the diagnostic "robust: debugfs-load <n> runs, <k> rejected, <f>
# faults".
#
# Inputs: random bytes; a vmlinux blob (kunwind-dump export /boot/vmlinux)
# cut to its first records (a valid blob of a few KiB, so that thousands of
# mutations stay cheap under TCG) and mutated one field or byte at a time:
# header fields, section bytes, record length/CIE pointer/address fields,
# truncations, most with the checksum recomputed (FNV-1a, in awk) so that
# the mutation reaches the parser and the engine; the whole blob written in
# odd-sized pieces, cut short, or with bytes beyond its end.  Every write
# must be accepted or refused with EINVAL, nothing else; after every
# accepted blob a backtrace is taken with the table it installed.  At the
# end the whole blob is loaded again, as scripts/guest/kunwind.sh left it.
#
# On a kernel whose vmlinux .sframe kunwind refused (README: binutils
# 2.44), kunwind-dump refuses /boot/vmlinux as a whole, and the fuzz pass
# is skipped with that reason when the tool names the same offset and
# reason as the kernel's log line.
#
# ROBUST_LOAD_RUNS sets the number of mutated blobs (default 300).
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
T=/tmp/robust_load
RUNS=${ROBUST_LOAD_RUNS:-300}
mkdir -p $T
runs=0 rej=0 acc=0 faults=0
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
ktap_plan 3

# --- permissions ------------------------------------------------------------
tp=$(date +%s)
bad=
for f in $D/*; do
	m=$(stat -c %a "$f")
	case $m in
	?00) ;;
	*) bad="$bad ${f##*/}=$m" ;;
	esac
done
if [ -z "$bad" ]; then
	ok "debugfs kunwind files have no group/other access"
else
	notok "debugfs kunwind files open to non-root:$bad"
fi
# a user to become: busybox su needs one in /etc/passwd
grep -q '^robustnobody:' /etc/passwd 2>/dev/null ||
	echo 'robustnobody:x:65534:65534:robust:/:/bin/sh' >>/etc/passwd
if su robustnobody -s /bin/sh -c 'test "$(id -u)" = 65534' 2>/dev/null; then
	opened=
	for f in $D/*; do
		su robustnobody -s /bin/sh -c "cat $f" >/dev/null 2>&1 &&
			opened="$opened r:${f##*/}"
		su robustnobody -s /bin/sh -c "echo self >$f" 2>/dev/null &&
			opened="$opened w:${f##*/}"
	done
	if [ -z "$opened" ]; then
		ok "uid 65534 can neither read nor write debugfs kunwind files"
	else
		notok "uid 65534 opened debugfs kunwind files:$opened"
	fi
else
	skip "uid 65534 can neither read nor write debugfs kunwind files" \
		"cannot become uid 65534 (su): mode bits only"
fi

diag "permission checks $(($(date +%s) - tp)) s"

# --- the fuzzer's pieces --------------------------------------------------------
cat >$T/blob.awk <<'AWK'
# stdin: the bytes of a blob as decimal numbers (od -An -v -tu1).
#  mode=cut    write to `out` the blob cut to the section's first records,
#              about `cut` bytes (sec_size and checksum fixed)
#  mode=gen    write `runs` mutations of it to `dir`/<i>.blob, one field or
#              byte each (header incl. kind, build id and owner, section
#              bytes, record length/CIE pointer/address fields,
#              truncation); the checksum is recomputed but
#              for every 8th; `dir`/list gets "<i> short|whole <stale>",
#              short when the header announces more bytes than follow
function le(o, k,   v, i) { v = 0; for (i = k - 1; i >= 0; i--) v = v * 256 + b[o + i]; return v }
function put(o, k, v,   i) { for (i = 0; i < k; i++) { b[o + i] = v % 256; v = int(v / 256) } }
function fnv(lo,   h, i) {
	h = lo > 0 ? pre[lo] : 2166136261
	for (i = lo; i < n; i++) {
		h = xor(h, (i >= 52 && i < 56) ? 0 : b[i])
		h = ((h % 256) * 16777216 + h * 403) % 4294967296
	}
	return h
}
function r(k) { return int(rand() * k) }
function evil(old, size,   k) {
	k = r(9)
	if (k == 0) return 0
	if (k == 1) return 4294967295
	if (k == 2) return 2147483648
	if (k == 3) return (old + 1 + r(8)) % 4294967296
	if (k == 4) return (old + 4294967296 - 1 - r(8)) % 4294967296
	if (k == 5) return size
	if (k == 6) return xor(old, lshift(1, r(32)))
	return r(4294967296)
}
function emit(f,   i) {
	for (i = 0; i < n; i++)
		printf "%c", b[i] >f
	close(f)
}
# returns the lowest byte index changed (the hash is kept up to there)
function mutate(mode,   f, o, k) {
	if (mode == "hdr") {
		f = r(13)
		if (f == 0) put(8, 2, r(4))
		else if (f == 1) put(10, 2, evil(160, n) % 65536)
		else if (f == 2) b[12] = r(4)
		else if (f == 3) b[13] = r(4)
		else if (f == 4) b[14 + r(2)] = r(2) ? r(3) : r(256)
		else if (f == 5) put(16 + 4 * r(2), 4, evil(le(16, 4), n))
		else if (f == 6) put(24 + 4 * r(4), 4, evil(le(24, 4), n))
		else if (f == 7) put(40 + 4 * r(2), 4, evil(le(40, 4), n))
		else if (f == 8) put(48, 4, evil(n - 160, n))
		else if (f == 9) b[56 + r(8)] = 1 + r(255)
		else if (f == 10) b[64 + r(32)] = r(256)
		else if (f == 11) b[96 + r(64)] = r(256)
		else b[r(8)] = r(256)
		return 0
	}
	if (mode == "sec") {
		o = 160 + r(n - 160)
		if (r(2)) b[o] = xor(b[o], lshift(1, r(8))); else b[o] = r(256)
		return o
	}
	if (mode == "trunc") {
		n = 160 + r(n - 160)
		put(48, 4, n - 160)
		return 0
	}
	if (mode == "len") {
		o = 160; k = 0
		while (o + 8 <= n) { rec[k++] = o; o += 4 + le(o, 4) }
		o = rec[r(k)] + 4 * r(4)
		put(o, 4, evil(le(o, 4), n))
		return o
	}
	o = r(n)
	b[o] = r(256)
	return o < 56 ? 0 : o
}
{
	for (i = 1; i <= NF; i++)
		b[n++] = $i + 0
}
END {
	srand(seed)
	if (mode == "cut") {
		o = 160
		while (o + 4 <= n && o - 160 < cut)
			o += 4 + le(o, 4)
		n = o
		put(48, 4, n - 160)
		put(52, 4, fnv(0))
		emit(out)
		exit
	}
	n0 = n
	h = 2166136261
	for (i = 0; i < n0; i++) {
		orig[i] = b[i]
		pre[i] = h
		h = xor(h, (i >= 52 && i < 56) ? 0 : b[i])
		h = ((h % 256) * 16777216 + h * 403) % 4294967296
	}
	split("hdr sec len trunc sec any", modes, " ")
	for (j = 1; j <= runs; j++) {
		n = n0
		for (i = 0; i < n; i++)
			b[i] = orig[i]
		lo = mutate(modes[j % 6 + 1])
		stale = j % 8 == 0
		if (!stale)
			put(52, 4, fnv(lo))
		sz = le(48, 4)
		ns = le(56, 2)
		short = sz > 0 && sz <= 67108864 && ns <= 64 && 160 + 48 * ns + sz > n
		emit(dir "/" j ".blob")
		print j, short ? "short" : "whole", stale >(dir "/list")
	}
}
AWK

# load FILE KIND [dd-bs]: write FILE to debugfs load; KIND "short" when
# the header announces more bytes than the file has (the write succeeds,
# the blob is ignored at close).  Returns 0 accepted, 1 refused (EINVAL,
# EBADMSG, ESTALE another build id, ENOENT an owner not loaded, EEXIST; or
# ignored), 2 for anything else (a fault).  An accepted blob is unwound
# with, then dropped (debugfs unload) so that the next one may load.
load() {
	runs=$((runs + 1))
	if [ -n "${3:-}" ]; then
		dd if="$1" of=$C/load bs="$3" 2>$T/err >/dev/null
	else
		cat "$1" 2>$T/err >$C/load
	fi
	rc=$?
	if [ $rc = 0 ] && [ "$2" = short ]; then
		rej=$((rej + 1))
		return 1
	fi
	if [ $rc = 0 ]; then
		acc=$((acc + 1))
		# unwind with the table the blob installed
		echo self >$C/backtrace || faults=$((faults + 1))
		echo "vmlinux eh_frame" >$C/unload || faults=$((faults + 1))
		return 0
	fi
	read -r e <$T/err
	case $e in
	*"Invalid argument"* | *"Bad message"* | *"Stale file handle"* | \
	*"No such file or directory"* | *"File exists"*)
		rej=$((rej + 1))
		return 1 ;;
	esac
	diag "run $runs: unexpected outcome: $e"
	faults=$((faults + 1))
	return 2
}

# kind FILE: "short" if FILE is shorter than its header announces
kind() {
	k=$(wc -c <"$1")
	# under 8 bytes: waits for more; no magic: refused once 8 are in
	[ "$k" -lt 8 ] && { echo short; return; }
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' ')" = 4b5557424c4f4200 ] ||
		{ echo whole; return; }
	[ "$k" -lt 160 ] && { echo short; return; }
	sz=$(od -An -tu4 -j48 -N4 "$1")
	ns=$(od -An -tu2 -j56 -N2 "$1")
	if [ "$sz" -gt 0 ] && [ "$sz" -le 67108864 ] && [ "$ns" -le 64 ] &&
	   [ $((160 + 48 * ns + sz)) -gt "$k" ]; then
		echo short
	else
		echo whole
	fi
}

if ! command -v kunwind-dump >/dev/null 2>&1 || [ ! -f /boot/vmlinux ] ||
   [ ! -w $C/load ]; then
	skip "robust debugfs load fuzz" "no kunwind-dump, /boot/vmlinux or $C/load"
	exit 0
fi
t0=$(date +%s)
kunwind-dump export /boot/vmlinux -o $T/v.blob >$T/export.log 2>&1
erc=$?
# kunwind.ko refused vmlinux's .sframe (one log line, checked by
# scripts/guest/kunwind.sh): kunwind-dump validates the whole file and
# refuses /boot/vmlinux alike, naming the same offset and reason
sfrej=$(dmesg | grep -v 'kuw-guest: ' |
	sed -n 's/^.*kunwind: vmlinux: \.sframe rejected: //p')
if [ "$erc" = 1 ] && [ -n "$sfrej" ] &&
   grep -qF "/boot/vmlinux: ${sfrej##* at }: ${sfrej% at *}" $T/export.log; then
	skip "robust debugfs load fuzz" "vmlinux .sframe refused: $sfrej (kunwind-dump export refuses /boot/vmlinux alike)"
	exit 0
fi
if [ "$erc" != 0 ]; then
	diag <$T/export.log
	notok "robust debugfs load fuzz: kunwind-dump export failed"
	exit 0
fi
t1=$(date +%s)
# the kernel's own table goes: each accepted blob gives it back (then goes)
echo "vmlinux eh_frame" >$C/unload
head -c 16384 $T/v.blob | od -An -v -tu1 |
	awk -v mode=cut -v cut=400 -v out=$T/small.blob -f $T/blob.awk
mkdir -p $T/m
rm -f $T/m/*
od -An -v -tu1 $T/small.blob |
	awk -v mode=gen -v runs="$RUNS" -v dir=$T/m -v seed=6 -f $T/blob.awk
t2=$(date +%s)

# 1. the cut blob itself is valid, whole or in odd pieces
load $T/small.blob whole || { diag "the cut blob was refused"; faults=$((faults + 1)); }
load $T/small.blob whole 7 || { diag "the cut blob in 7-byte writes was refused"; faults=$((faults + 1)); }
# 2. random bytes, with and without the magic
i=0
while [ $i -lt 40 ]; do
	i=$((i + 1))
	len=$(( ($(head -c 2 /dev/urandom | od -An -tu2) % 300) + 1 ))
	if [ $((i % 2)) = 0 ]; then
		{ printf 'KUWBLOB\000'; head -c $len /dev/urandom; } >$T/r.blob
	else
		head -c $len /dev/urandom >$T/r.blob
	fi
	load $T/r.blob "$(kind $T/r.blob)" &&
		{ diag "random blob $i accepted"; faults=$((faults + 1)); }
done
# 3. cut short (ignored at close), or bytes beyond the end
head -c 100 $T/small.blob >$T/short.blob	# magic, then cut
load $T/short.blob short
{ cat $T/small.blob; printf 'trailing'; } >$T/long.blob
load $T/long.blob whole && { diag "a blob with trailing bytes was accepted"; faults=$((faults + 1)); }
# 4. the mutations (made above in one awk run: forks are dear under TCG)
while read -r i k stale; do
	load $T/m/$i.blob $k
	if [ $? = 0 ] && [ "$stale" = 1 ] && ! cmp -s $T/m/$i.blob $T/small.blob; then
		diag "mutation $i with a stale checksum was accepted"
		faults=$((faults + 1))
	fi
done <$T/m/list
# 5. the whole blob with a stale checksum, then as it was
cp $T/v.blob $T/vbad.blob
printf '\377' | dd of=$T/vbad.blob bs=1 seek=70000 conv=notrunc 2>/dev/null
load $T/vbad.blob whole && { diag "the whole blob with a stale checksum was accepted"; faults=$((faults + 1)); }
cat $T/v.blob >$C/load || { diag "the whole blob was refused at the end"; faults=$((faults + 1)); }
grep -q '^vmlinux .eh_frame .* blob$' $D/tables ||
	{ diag "no vmlinux .eh_frame table from the blob at the end"; faults=$((faults + 1)); }

t3=$(date +%s)
diag "robust: debugfs-load $runs runs, $rej rejected, $faults faults ($acc accepted)"
diag "export $((t1 - t0)) s, mutations made in $((t2 - t1)) s, written in $((t3 - t2)) s"
if [ $faults = 0 ]; then
	ok "robust debugfs load fuzz: $runs writes, $rej refused, $acc accepted"
else
	notok "robust debugfs load fuzz: $faults faults in $runs writes"
fi
