#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest-side checks of kunwind's debugfs, run by the test bed's /init after
# the test modules are loaded (busybox sh; reports KTAP through
# /etc/kuw-ktap.sh: 15 results).
#
#  0. vmlinux's .sframe: either accepted (listed in tables, no refusal
#     logged), or refused in exactly one kernel log line naming owner,
#     section, reason and offset ("kunwind: vmlinux: .sframe rejected:
#     <reason> at .sframe+0x<off>": a test kernel linked by binutils 2.44,
#     README), with tables then listing vmlinux's .eh_frame and no .sframe.
#     kunwind-dump validates a whole file, so it refuses such a
#     /boot/vmlinux too: checks 2 and 5 then expect its error to name the
#     same offset and reason, and are skipped with that reason.
#  1. rules: for every row of every executable section of unwind_test.ko,
#     and one byte into each row, debugfs kunwind/rules gives the same row
#     (same rule text, same offset in the section) as `kunwind-dump rules`
#     computes from the same .ko file on disk.
#     The same for every .sframe row, with the source forced to sframe.
#  2. rules for vmlinux functions against `kunwind-dump rules /boot/vmlinux`.
#  3. bad writes to rules, backtrace and load are refused (-EINVAL), and
#     change nothing.
#  4. backtrace self ends cleanly at the end of the stack.
#  5. load: the vmlinux blob made by `kunwind-dump export /boot/vmlinux`
#     is refused while the kernel's .eh_frame table is there (EEXIST);
#     after debugfs unload drops it, the blob gives it back with the same
#     rules; a corrupted blob is refused whole (EBADMSG).
# shellcheck source=../init/ktap.sh
. /etc/kuw-ktap.sh
D=/sys/kernel/debug/kunwind
C=/dev/kunwind
# rules answers on the open file that was written to: one for the whole check
[ -c $C/rules ] && exec 7<>$C/rules
T=/tmp/kuw-guest
mkdir -p $T
have_dump() { command -v kunwind-dump >/dev/null 2>&1; }
# backtrace keeps its result per open file: write and read on one fd
bt() {
	exec 8<>$C/backtrace
	echo "$1" >&8 && cat <&8 >$T/bt
	r=$?
	exec 8>&-
	return $r
}

if [ ! -d $D ]; then
	ktap_plan 1
	notok "debugfs kunwind/ exists"
	exit 0
fi
ktap_plan 15

# --- 0. vmlinux's .sframe accepted, or refused in one log line ------------
# (guest lines reach the kernel log too, as "kuw-guest: ...": not those)
dmesg | grep -v 'kuw-guest: ' | grep 'kunwind: vmlinux: .sframe rejected' |
	sed 's/^.*kunwind: vmlinux: /kunwind: vmlinux: /' >$T/sfrej
nrej=$(wc -l <$T/sfrej)
SFREJ=""	# "<reason> at .sframe+0x<off>" when refused
grep -q '^vmlinux \.eh_frame ' $D/tables && veh=1 || veh=0
grep -q '^vmlinux \.sframe ' $D/tables && vsf=1 || vsf=0
if [ "$nrej" = 1 ] &&
   grep -Eq '^kunwind: vmlinux: \.sframe rejected: [a-zA-Z].* at \.sframe\+0x[0-9a-f]+$' $T/sfrej &&
   [ "$veh" = 1 ] && [ "$vsf" = 0 ]; then
	SFREJ=$(sed 's/^kunwind: vmlinux: .sframe rejected: //' $T/sfrej)
	ok "vmlinux .sframe refused in one log line ($SFREJ), tables: .eh_frame, no .sframe"
elif [ "$nrej" = 0 ] && [ "$vsf" = 1 ]; then
	ok "vmlinux .sframe accepted: in tables, no refusal logged"
elif [ "$nrej" = 0 ] && [ "$veh" = 1 ] && ! grep -q ' __sframe_start$' /proc/kallsyms; then
	skip "vmlinux .sframe accepted or refused in one log line" "the kernel has no .sframe"
else
	diag <$T/sfrej
	grep '^vmlinux ' $D/tables | diag
	notok "vmlinux .sframe: $nrej refusals logged, tables: .eh_frame $veh, .sframe $vsf"
fi
# dump_refuses_too FILE: kunwind-dump's error (in FILE) names the offset and
# reason of kunwind.ko's refusal ("/boot/vmlinux: .sframe+0x30: overlapping
# FDEs" for "overlapping FDEs at .sframe+0x30")
dump_refuses_too() {
	[ -n "$SFREJ" ] &&
		grep -qF "/boot/vmlinux: ${SFREJ##* at }: ${SFREJ% at *}" "$1"
}

# Loops below run no command per address (no fork: TCG makes forks slow).

# --- 1. rules of a module against kunwind-dump on its .ko ---------------
MOD=unwind_test
KO=/lib/kunwind/kunit/$MOD.ko
if ! have_dump || [ ! -f $KO ] || [ ! -d /sys/module/$MOD/sections ]; then
	skip "rules of $MOD.ko match kunwind-dump" "no kunwind-dump, $KO or module"
else
	# executable sections: name, host address, size, guest address
	kunwind-dump sections $KO | while read -r name addr size flags; do
		[ "$flags" = x ] || continue
		[ -r /sys/module/$MOD/sections/$name ] || continue
		echo "$name $addr $size $(cat /sys/module/$MOD/sections/$name)"
	done >$T/xsec
	# host pcs of every .eh_frame row, and one byte into each
	kunwind-dump rows $KO | awk '
		/^fde/ { eh = ($3 == "eh_frame"); next }
		eh { print $1, 0; print $1, 1 }' >$T/hpcs
	: >$T/pairs
	while read -r p d; do
		h=$((p + d))
		while read -r name ha size ga; do
			if [ $h -ge $((ha)) ] && [ $h -lt $((ha + size)) ]; then
				printf '0x%x 0x%x %s %s\n' $h \
					$((ga + h - ha)) $ha $ga >>$T/pairs
				break
			fi
		done <$T/xsec
	done <$T/hpcs
	# shellcheck disable=SC2046
	kunwind-dump rules $KO $(awk '{ print $1 }' $T/pairs) >$T/host
	total=0 bad=0
	exec 3<$T/host
	while read -r hpc gpc ha ga; do
		read -r hl <&3
		total=$((total + 1))
		if ! echo "$gpc" >&7; then
			bad=$((bad + 1))
			diag "write $gpc refused"
			continue
		fi
		{ read -r _; read -r gl; } <&7
		hrow=${hl%% *} grow=${gl%% *}
		if [ "${hl#* }" != "${gl#* }" ] ||
		   [ $((hrow - ha)) -ne $((grow - ga)) ]; then
			bad=$((bad + 1))
			[ $bad -le 5 ] &&
				diag "$hpc: kunwind-dump '$hl', debugfs '$gl' (at $gpc)"
		fi
	done <$T/pairs
	exec 3<&-
	if [ $total -gt 20 ] && [ $bad = 0 ]; then
		ok "rules: $total addresses of $MOD.ko match kunwind-dump"
	else
		notok "rules: $bad of $total addresses of $MOD.ko differ from kunwind-dump"
	fi
fi

# --- 1b. SFrame rules of the module ---------------------------------------
# Each .sframe row of the .ko, looked up at its start with the source forced
# to sframe, has the rule text kunwind-dump computes for that row.
if ! have_dump || [ ! -f $KO ] || [ ! -s $T/xsec ]; then
	skip "sframe rules of $MOD.ko match kunwind-dump rows" "no kunwind-dump, $KO or sections"
else
	kunwind-dump rows $KO | awk '
		/^fde/ { sf = ($3 == "sframe"); next }
		sf { print }' >$T/srows
	: >$T/spairs
	while read -r hpc rule; do
		h=$((hpc))
		while read -r name ha size ga; do
			if [ $h -ge $((ha)) ] && [ $h -lt $((ha + size)) ]; then
				printf '%s 0x%x %s\n' $hpc $((ga + h - ha)) \
					"$rule" >>$T/spairs
				break
			fi
		done <$T/xsec
	done <$T/srows
	total=0 bad=0
	while read -r hpc gpc rule; do
		total=$((total + 1))
		echo "$gpc sframe" >&7 || { bad=$((bad + 1)); continue; }
		{ read -r _; read -r gl; } <&7
		if [ "$rule" != "${gl#* }" ]; then
			bad=$((bad + 1))
			[ $bad -le 5 ] && diag "$hpc: kunwind-dump '$rule', debugfs '$gl'"
		fi
	done <$T/spairs
	if [ $total -gt 20 ] && [ $bad = 0 ]; then
		ok "rules: $total .sframe rows of $MOD.ko match kunwind-dump"
	else
		notok "rules: $bad of $total .sframe rows of $MOD.ko differ from kunwind-dump"
	fi
fi

# --- 2. rules of vmlinux functions ----------------------------------------
# Each side resolves the symbol itself; the row at fn+off must have the
# same rule text and the same offset from the function's start row.
if ! have_dump || [ ! -f /boot/vmlinux ]; then
	skip "rules of vmlinux match kunwind-dump" "no kunwind-dump or /boot/vmlinux"
else
	total=0 bad=0 dumprc=0
	offs="0 1 2 3 4 5 6 8 10 12 16 20 24 32 40 48 64"
	for f in vfs_read vfs_write ksys_write do_syscall_64 kthread \
		 schedule_timeout copy_process; do
		args=""
		for o in $offs; do args="$args $f+$o"; done
		# shellcheck disable=SC2086
		kunwind-dump rules /boot/vmlinux $args >$T/vhost 2>$T/vhost.err ||
			{ dumprc=$?; continue; }
		exec 3<$T/vhost
		hf="" gf=""
		for o in $offs; do
			read -r hl <&3
			echo "$f+$o" >&7 || continue
			{ read -r _; read -r gl; } <&7
			[ -n "$hf" ] || hf=${hl%% *} gf=${gl%% *}
			total=$((total + 1))
			if [ "${hl#* }" != "${gl#* }" ] ||
			   [ $((${hl%% *} - hf)) -ne $((${gl%% *} - gf)) ]; then
				bad=$((bad + 1))
				[ $bad -le 5 ] &&
					diag "$f+$o: kunwind-dump '$hl', debugfs '$gl'"
			fi
		done
		exec 3<&-
	done
	if [ $total -gt 50 ] && [ $bad = 0 ]; then
		ok "rules: $total vmlinux addresses match kunwind-dump"
	elif [ "$total" = 0 ] && [ "$dumprc" = 1 ] && dump_refuses_too $T/vhost.err; then
		skip "rules of vmlinux match kunwind-dump" "vmlinux .sframe refused: $SFREJ (kunwind-dump refuses /boot/vmlinux alike)"
	else
		[ ! -s $T/vhost.err ] || diag <$T/vhost.err
		notok "rules: $bad of $total vmlinux addresses differ from kunwind-dump"
	fi
fi

# --- 3. bad writes ----------------------------------------------------------
echo vfs_read >&7
before=$(cat <&7)
refused=0 tries=0
for w in "no_such_symbol_kuw" "0x12zz" "vfs_read nosuchsrc" "+4" ""; do
	tries=$((tries + 1))
	if ! printf '%s\n' "$w" >&7 2>/dev/null; then
		refused=$((refused + 1))
	fi
done
# a refused write changes nothing: no new answer to read on that file
if [ $refused = $tries ] && [ -n "$before" ] && [ -z "$(cat <&7)" ]; then
	ok "rules: $tries bad writes refused, state unchanged"
else
	notok "rules: $refused of $tries bad writes refused"
fi
refused=0 tries=0
for w in "selff" "pid" "pid abc" "pid 999999" "frobnicate"; do
	tries=$((tries + 1))
	printf '%s\n' "$w" >$C/backtrace 2>/dev/null || refused=$((refused + 1))
done
if [ $refused = $tries ]; then
	ok "backtrace: $tries bad writes refused"
else
	notok "backtrace: $refused of $tries bad writes refused"
fi
tables_before=$(cat $D/tables)
if ! echo "this is not a blob, but long enough to have a header, really: 0123456789" >$C/load 2>/dev/null &&
   [ "$(cat $D/tables)" = "$tables_before" ]; then
	ok "load: garbage refused, tables unchanged"
else
	notok "load: garbage accepted or tables changed"
fi
for f in tables stats; do
	if echo x >$D/$f 2>/dev/null; then
		notok "$f is read-only"
	else
		ok "$f is read-only"
	fi
done

# --- 4. backtrace -----------------------------------------------------------
if bt self && grep -q '^stop: end of stack' $T/bt &&
   grep -q 'vfs_write' $T/bt; then
	ok "backtrace self: through vfs_write to the end of the stack"
else
	diag <$T/bt
	notok "backtrace self"
fi
if bt "pid 2" && grep -q '^stop: end of stack' $T/bt &&
   grep -q 'kthreadd' $T/bt; then
	ok "backtrace pid 2: kthreadd sleeping, to the end of its stack"
else
	diag <$T/bt
	notok "backtrace pid 2"
fi

# --- 5. load a vmlinux blob ---------------------------------------------------
L1="load: a second vmlinux .eh_frame refused (EEXIST), tables unchanged"
L2="load: after unload, the blob gives vmlinux .eh_frame, same rules"
L3="load: backtrace through the blob's table"
L4="load: corrupted blob refused whole"
erc=2
if have_dump && [ -f /boot/vmlinux ]; then
	kunwind-dump export /boot/vmlinux -o $T/v.blob >$T/export.log 2>&1
	erc=$?
fi
if ! have_dump || [ ! -f /boot/vmlinux ]; then
	for t in "$L1" "$L2" "$L3" "$L4"; do
		skip "$t" "no kunwind-dump or /boot/vmlinux"
	done
elif [ "$erc" = 1 ] && dump_refuses_too $T/export.log; then
	for t in "$L1" "$L2" "$L3" "$L4"; do
		skip "$t" "vmlinux .sframe refused: $SFREJ (kunwind-dump export refuses /boot/vmlinux alike)"
	done
elif [ "$erc" != 0 ]; then
	diag <$T/export.log
	notok "$L1"
	for t in "$L2" "$L3" "$L4"; do
		skip "$t" "kunwind-dump export failed"
	done
else
	echo vfs_write+0x10 >&7
	{ read -r _; read -r r1; } <&7
	tb=$(cat $D/tables)
	if ! cat $T/v.blob 2>$T/err >$C/load && grep -q 'File exists' $T/err &&
	   [ "$(cat $D/tables)" = "$tb" ]; then
		ok "$L1"
	else
		diag <$T/err
		notok "$L1"
	fi
	if echo "vmlinux eh_frame" >$C/unload &&
	   ! grep -q '^vmlinux .eh_frame ' $D/tables &&
	   cat $T/v.blob >$C/load &&
	   grep -q '^vmlinux .eh_frame .* blob$' $D/tables; then
		echo vfs_write+0x10 >&7
		{ read -r _; read -r r2; } <&7
		if [ "$r1" = "$r2" ]; then
			ok "$L2"
		else
			notok "$L2: '$r1' vs '$r2'"
		fi
		if bt self &&
		   grep -q '^stop: end of stack' $T/bt; then
			ok "$L3"
		else
			notok "$L3"
		fi
		# flip bytes in the middle of the section: checksum or parse
		# fails, before the table is found to be there already
		cp $T/v.blob $T/bad.blob
		printf 'XXXX' | dd of=$T/bad.blob bs=1 seek=4096 conv=notrunc 2>/dev/null
		tb=$(cat $D/tables)
		if ! cat $T/bad.blob 2>$T/err >$C/load &&
		   grep -q 'Bad message' $T/err &&
		   [ "$(cat $D/tables)" = "$tb" ]; then
			ok "$L4"
		else
			diag <$T/err
			notok "$L4"
		fi
	else
		notok "$L2"
		skip "$L3" "no blob loaded"
		skip "$L4" "no blob loaded"
	fi
fi
rm -rf $T
