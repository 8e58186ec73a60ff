#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /dev/kunwind/load fuzzed from userspace, and the debugfs
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
ktap_plan 14
P=$(command -v kuw_priv)
NODES="rules backtrace load unload consumers"
dmesg >$T/dmesg0

# --- /dev/kunwind: who may ----------------------------------------------
# every node a character device of root's, 0600
bad=
for n in $NODES; do
	# shellcheck disable=SC2012 # busybox: no stat -c %F for devices
	l=$(ls -ln $C/$n 2>&1)
	case $l in
	"crw------- "*" 0 "*" 0 "*) ;;
	*) bad="$bad $n:${l%% *}" ;;
	esac
done
if [ -z "$bad" ]; then
	ok "/dev/kunwind nodes are root's character devices, 0600"
else
	notok "/dev/kunwind nodes are root's character devices, 0600:$bad"
fi

if [ -z "$P" ]; then
	for t in "uid 0 without CAP_SYS_ADMIN opens no /dev/kunwind node" \
		"an fd opened with CAP_SYS_ADMIN keeps working after every capability is dropped" \
		"kptr_restrict=2 hides kernel addresses (rules, backtrace, debugfs)" \
		"kptr_restrict=1 hides them from an opener without CAP_SYSLOG only"; do
		skip "$t" "no kuw_priv in this initramfs"
	done
else
	# uid 0, CAP_SYS_ADMIN dropped (the others kept): every open refused
	opened=
	for n in $NODES; do
		"$P" -d sys_admin $C/$n >$T/o 2>$T/e
		r=$?
		[ $r = 1 ] && grep -q 'not permitted' $T/e ||
			opened="$opened $n(rc $r: $(cat $T/e))"
	done
	if [ -z "$opened" ]; then
		ok "uid 0 without CAP_SYS_ADMIN opens no /dev/kunwind node"
	else
		notok "uid 0 without CAP_SYS_ADMIN opens no /dev/kunwind node:$opened"
	fi
	# opened with every capability, all dropped before the write: the
	# opener's rights go with the fd
	f=
	"$P" -k -d all $C/rules vfs_read >$T/o 2>$T/e &&
		grep -q '^vfs_read+0x0/' $T/o || f="$f rules($(cat $T/e))"
	"$P" -k -d all $C/backtrace self >$T/o 2>$T/e &&
		grep -q '^reliable: ' $T/o || f="$f backtrace($(cat $T/e))"
	"$P" -k -d all $C/unload "no_such_module_kuw eh_frame" >$T/o 2>$T/e
	grep -q 'No such file' $T/e || f="$f unload($(cat $T/e))"
	if [ -z "$f" ]; then
		ok "an fd opened with CAP_SYS_ADMIN keeps working after every capability is dropped"
	else
		notok "an fd opened with CAP_SYS_ADMIN keeps working after every capability is dropped:$f"
	fi

	# addresses: 0x and at least 9 hex digits (kernel text is ffff...)
	addr='0x[0-9a-f]\{9,\}'
	# show FILE [OPTS]: rules, backtrace, debugfs tables and internals
	# shellcheck disable=SC2086 # $2: options, split
	show() {
		: >"$1"
		"$P" $2 $C/rules vfs_read >>"$1" 2>&1
		"$P" $2 $C/backtrace self >>"$1" 2>&1
		"$P" $2 $D/tables >>"$1" 2>&1
		"$P" $2 $D/internals >>"$1" 2>&1
	}
	was=$(cat /proc/sys/kernel/kptr_restrict)
	echo 0 >/proc/sys/kernel/kptr_restrict
	show $T/k0
	echo 2 >/proc/sys/kernel/kptr_restrict
	show $T/k2
	# a raw address, or an offset past the symbol, would name what is there
	"$P" $C/rules 0xffffffff81000000 >/dev/null 2>$T/raw
	"$P" $C/rules vfs_read+0x100000 >/dev/null 2>$T/off
	echo 1 >/proc/sys/kernel/kptr_restrict
	show $T/k1
	show $T/k1n "-d syslog"
	echo "$was" >/proc/sys/kernel/kptr_restrict
	n0=$(grep -c "$addr" $T/k0)
	if [ "$n0" -gt 0 ] && ! grep -q "$addr" $T/k2 &&
	   grep -q '^ *0 0x0 ' $T/k2 && grep -q '^vfs_read+0x0/' $T/k2 &&
	   grep -q 'not permitted' $T/raw && grep -q 'not permitted' $T/off; then
		ok "kptr_restrict=2 hides kernel addresses (rules, backtrace, debugfs; $n0 lines had them at 0)"
	else
		grep "$addr" $T/k2 | head -n 5 | diag
		diag "raw address: $(cat $T/raw); past the symbol: $(cat $T/off)"
		notok "kptr_restrict=2 hides kernel addresses (rules, backtrace, debugfs; $n0 lines had them at 0)"
	fi
	if grep -q "$addr" $T/k1 && ! grep -q "$addr" $T/k1n &&
	   grep -q '^vfs_read+0x0/' $T/k1n; then
		ok "kptr_restrict=1 hides them from an opener without CAP_SYSLOG only"
	else
		grep "$addr" $T/k1n | head -n 5 | diag
		notok "kptr_restrict=1 hides them from an opener without CAP_SYSLOG only ($(grep -c "$addr" $T/k1) lines with, $(grep -c "$addr" $T/k1n) without)"
	fi
fi

# rules: each open file its own address
exec 5<>$C/rules 6<>$C/rules
echo vfs_read >&5
echo vfs_write >&6
r5=$(head -n 1 <&5)
r6=$(head -n 1 <&6)
exec 5>&- 6>&-
case "$r5 $r6" in
"vfs_read+0x0/"*" vfs_write+0x0/"*) ok "rules keeps its address per open file" ;;
*) notok "rules keeps its address per open file (read '$r5' and '$r6')" ;;
esac

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

# The checks that need a blob (after the fuzz, on its cut blob)
BLOB_CHECKS="two threads writing one load fd: one takes the blob, the other is refused
two threads writing one load fd in interleaved pieces: refusals only
a reader and a writer on one backtrace or rules fd: whole results only
a blob's hostile owner name is logged escaped, on one line
no kernel report (BUG, WARNING, Oops, KASAN, slab) meanwhile"
blob_skips() {
	printf '%s\n' "$BLOB_CHECKS" | while read -r t; do skip "$t" "$1"; done
}

if ! command -v kunwind-dump >/dev/null 2>&1 || [ ! -f /boot/vmlinux ] ||
   [ ! -w $C/load ]; then
	skip "robust debugfs load fuzz" "no kunwind-dump, /boot/vmlinux or $C/load"
	blob_skips "no kunwind-dump, /boot/vmlinux or $C/load"
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
	blob_skips "vmlinux .sframe refused"
	exit 0
fi
if [ "$erc" != 0 ]; then
	diag <$T/export.log
	notok "robust debugfs load fuzz: kunwind-dump export failed"
	blob_skips "kunwind-dump export failed"
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
# --- one fd, two threads (the blob's table is in: each whole blob EEXIST) ---
if [ -n "$P" ]; then
	if "$P" load-race $C/load $T/small.blob 100 >$T/race 2>&1; then
		ok "two threads writing one load fd: one takes the blob, the other is refused ($(tail -n 1 $T/race))"
	else
		diag <$T/race
		notok "two threads writing one load fd: one takes the blob, the other is refused"
	fi
	if "$P" load-chunks $C/load $T/small.blob 30 >$T/race 2>&1; then
		ok "two threads writing one load fd in interleaved pieces: refusals only ($(tail -n 1 $T/race))"
	else
		diag <$T/race
		notok "two threads writing one load fd in interleaved pieces: refusals only"
	fi
	if "$P" read-race $C/backtrace 100 self "pid 1" >$T/race 2>&1 &&
	   "$P" read-race $C/rules 300 vfs_read vfs_write+0x10 >>$T/race 2>&1; then
		ok "a reader and a writer on one backtrace or rules fd: whole results only"
	else
		notok "a reader and a writer on one backtrace or rules fd: whole results only"
	fi
	diag <$T/race
else
	for t in "two threads writing one load fd: one takes the blob, the other is refused" \
		"two threads writing one load fd in interleaved pieces: refusals only" \
		"a reader and a writer on one backtrace or rules fd: whole results only"; do
		skip "$t" "no kuw_priv in this initramfs"
	done
fi
# a hostile owner: a newline and an escape sequence in the header's owner
# (after the refusals above: the refusal line is rate-limited, 10 in 5 s)
sleep 6
cp $T/small.blob $T/evil.blob
printf 'evil\nkunwind: fake\033[31m\000' |
	dd of=$T/evil.blob bs=1 seek=96 conv=notrunc 2>/dev/null
cat $T/evil.blob >$C/load 2>$T/err
dmesg | grep -v 'kuw-guest: ' >$T/dmesg1
if ! grep -q 'blob for evil' $T/dmesg1; then
	# not logged at all: the rate limit, once more after its interval
	diag "no line for the hostile blob ($(cat $T/err)): once more"
	sleep 6
	cat $T/evil.blob >$C/load 2>$T/err
	dmesg | grep -v 'kuw-guest: ' >$T/dmesg1
fi
if grep -qF 'blob for evil\nkunwind: fake\e[31m refused' $T/dmesg1 &&
   ! grep -q '^\(<[0-9]*>\)\{0,1\}\(\[[ 0-9.]*\] \)\{0,1\}kunwind: fake' $T/dmesg1; then
	ok "a blob's hostile owner name is logged escaped, on one line"
else
	grep -a -B1 -A1 'evil' $T/dmesg1 | diag
	diag "write: $(cat $T/err); owner field: $(od -An -c -j96 -N24 $T/evil.blob | tr -s ' ')"
	tail -n 3 $T/dmesg1 | diag
	notok "a blob's hostile owner name is logged escaped, on one line"
fi
# nothing above left a kernel report in the log
dmesg | grep -v 'kuw-guest: ' | diff $T/dmesg0 - | sed -n 's/^+//p' |
	grep -E 'BUG[: ]|WARNING:|Oops|KASAN|general protection|Poison overwritten|Redzone|Freepointer|Object padding' >$T/rep
if [ ! -s $T/rep ]; then
	ok "no kernel report (BUG, WARNING, Oops, KASAN, slab) meanwhile"
else
	head -n 20 $T/rep | diag
	notok "no kernel report (BUG, WARNING, Oops, KASAN, slab) meanwhile"
fi

diag "robust: debugfs-load $runs runs, $rej rejected, $faults faults ($acc accepted)"
diag "export $((t1 - t0)) s, mutations made in $((t2 - t1)) s, written in $((t3 - t2)) s"
if [ $faults = 0 ]; then
	ok "robust debugfs load fuzz: $runs writes, $rej refused, $acc accepted"
else
	notok "robust debugfs load fuzz: $faults faults in $runs writes"
fi
