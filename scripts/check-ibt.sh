#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-ibt: kunwind executed on a CPU that enforces Indirect Branch
# Tracking.  QEMU's TCG has no CET; Bochs emulates it (cpu model
# tigerlake; Debian builds it with CET), so the guest runs under Bochs.
#
#   RELEASE=7.3 (default) or 6.12: the kernel release
#   KERNEL=stock (default): Debian's stock amd64 kernel of that release
#       (X86_KERNEL_IBT=y in Debian's config), kunwind.ko built against its
#       linux-headers with Debian 13's gcc-14, as make check-stock does;
#       the vmlinux blob from its -dbg package when make check-stock
#       cached the trimmed debug files (the 1.2 GB download is never made
#       here: without them the vmlinux frames are stepped by the kernel's
#       ORC, kunwind's tables cover the modules only, and the cell says so)
#   KERNEL=test: the project's x86_64 test kernel of that release
#       (scripts/build-kernel.sh; scripts/kconfig/<rel>/x86_64.config sets
#       X86_KERNEL_IBT), whose vmlinux carries its own tables and seals
#       like Debian's (its objtool does not take the unwind tables'
#       relocations for taken addresses: scripts/patches/<rel>/x86_64)
#
# Steps:
#  1. build kunwind.ko, demo_oops.ko and kunit/ibt_probe.ko (the negative
#     control) against the kernel
#  2. Bochs 3.0 from a Debian 13 root (it needs glibc 2.38+): bochs,
#     bochsbios, vgabios, and isolinux + xorriso for the boot ISO (Bochs has
#     no -kernel: isolinux loads the kernel and the busybox initramfs);
#     one CPU (Bochs is one thread), 512 MB, the serial port to a file,
#     instruction-count time (clock: sync=none: the guest's clock follows
#     the instructions, not the loaded host).  Display: Bochs' rfb (VNC)
#     server, the only headless one Debian builds, in a network namespace
#     of its own (unshare -n: nothing outside can reach it); it waits for
#     no client.  Bochs resets on the guest's `reboot -f`, which would boot
#     again: the host stops it once the serial log shows the kernel's
#     restart (or panic) line, and bounds the run with timeout.
#  2a. the guest (scripts/init/ibt.sh, KUW_IBT_EMU=bochs): IBT on (the ibt
#     flag, CR4.CET, ENDBR tracking), kunwind.ko, its internals (which of
#     them are sealed), every thread's walk, walks through the graph and
#     kretprobe trampolines, the consumers switch under a load, the
#     internals' call counts, the demo oops, then the negative control:
#     ibt_probe's indirect call to a sealed function must fault (#CP)
#  2b. the host, on the serial log: "CET detected: Indirect Branch Tracking
#     enabled"; kunwind's trace of the demo oops is the kernel's
#     (scripts/oops_traces.py); "Missing ENDBR: <the sealed function>" and
#     the kernel's BUG for it; kunwind's trace of that #CP oops is the
#     kernel's too; on a test kernel (its vmlinux is here) the functions
#     the guest found sealed (ibt_probe's "seal NAME" lines: kunwind's
#     internals and the control's target) are exactly those its
#     .ibt_endbr_seal lists (scripts/ibt_seal.py)
#  3. QEMU (TCG, no IBT), a short boot of the same initramfs
#     (KUW_IBT_EMU=qemu): no IBT there, and the same indirect call to the
#     same sealed function returns: the cell can tell IBT from no IBT
#
# Results are KTAP (scripts/ktap.py): the host's steps in a KTAP file, the
# guests' on their serial logs.  Last line: "N passed, N failed[, N
# skipped]".  Logs: $CACHE/logs/ibt-<kernel>-<rel>-{bochs,qemu}-last.log.
# Knobs: KUNWIND_IBT_TIMEOUT (Bochs, seconds of wall time, default 1500),
# KUNWIND_IBT_IPS (Bochs' instructions per guest second, default 200M).
REL=${KUW_RELEASE:-${KUNWIND_RELEASE:-7.3}}
case $REL in
6.12 | 7.3) ;;
*) echo "make check-ibt: RELEASE=$REL: 6.12 or 7.3 (6.1 has no kernel IBT in Debian's config)" >&2; exit 2 ;;
esac
KIND=${KUNWIND_IBT_KERNEL:-stock}
case $KIND in
stock | test) ;;
*) echo "make check-ibt: KERNEL=$KIND: stock or test" >&2; exit 2 ;;
esac
export KUW_RELEASE=$REL KUW_ARCH=x86_64
unset ARCH
. "$(dirname "$0")/lib.sh"

t0=$(date +%s)
stamp() { log "[$(( $(date +%s) - t0 ))s] $*"; }
kuw_deps
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-ibt.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$CACHE/logs"
HK="$WORK/host.ktap"
NHOST=10
printf 'KTAP version 1\n1..%s\n' "$NHOST" >"$HK"
hn=0
hres() { # ok|fail|skip NAME [SKIP REASON]
	local line
	hn=$((hn + 1))
	case $1 in
	ok) line="ok $hn $2" ;;
	skip) line="ok $hn $2 # SKIP ${3:-}" ;;
	*) line="not ok $hn $2" ;;
	esac
	echo "$line" >>"$HK"
	echo "host: $line"
}
hdiag() { echo "# $*" >>"$HK"; echo "host: # $*"; }
# summary ARGS...: scripts/ktap.py on each run of ARGS ("|" between
# runs), their failures, then the summed last line
summary() {
	local out p f s tp=0 tf=0 ts=0 r
	for r in "$@"; do
		# shellcheck disable=SC2086 # r: options and paths without blanks
		out=$(python3 "$REPO/scripts/ktap.py" --quiet $r) || true
		printf '%s\n' "$out" | sed '$d'
		read -r p f s < <(printf '%s\n' "$out" | tail -n 1 |
			sed -n -E 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p') || true
		[ -n "${p:-}" ] || { p=0 f=1 s=0; }
		tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + s))
	done
	if [ "$ts" != 0 ]; then
		echo "$tp passed, $tf failed, $ts skipped"
	else
		echo "$tp passed, $tf failed"
	fi
	[ "$tf" = 0 ]
}
# host_rest_skip REASON: the host results not reached
host_rest_skip() {
	while [ "$hn" -lt "$NHOST" ]; do
		hres skip "(not reached)" "$1"
	done
}

# --- the kernel ------------------------------------------------------------
DBG='' dbgwhy=''
if [ "$KIND" = stock ]; then
	kver=$(kuw_stock_kver "$REL" amd64) ||
		die "cannot find Debian's linux-image-amd64 of Linux $REL (private apt lists: $CACHE/apt)"
	SR=$(kuw_stock_image amd64 "$kver") || die "linux-image-$kver: download failed"
	KDIR=$(kuw_headers_fetch amd64 "$kver") || die "linux-headers-$kver: download failed"
	VMLINUZ=
	for f in "$SR/boot/vmlinuz-$kver" "$SR/usr/lib/modules/$kver/vmlinuz" \
		"$SR/lib/modules/$kver/vmlinuz"; do
		[ -f "$f" ] && { VMLINUZ=$f; break; }
	done
	[ -n "$VMLINUZ" ] || die "linux-image-$kver: no vmlinuz"
	# make check-stock's trimmed debug files (its recipe 3), if cached
	d="$CACHE/stock/$kver/dbg"
	read -r r _ 2>/dev/null <"$d/.kuw-ok" || r=
	if [ "$r" = 3 ] && [ -d "$d/root" ]; then
		DBG=$d
	else
		dbgwhy="no cached -dbg files of $kver (make check-stock RELEASE=$REL caches them): vmlinux frames stepped by ORC"
	fi
	KNAME="Debian's $kver"
else
	KDIR=$("$REPO/scripts/build-kernel.sh") || die "the $REL test kernel did not build"
	VMLINUZ=$KDIR/arch/x86/boot/bzImage
	kver=$(cat "$KDIR/include/config/kernel.release")
	dbgwhy="the test kernel's vmlinux carries its own tables"
	KNAME="the $REL test kernel ($kver)"
fi
grep -q '^CONFIG_X86_KERNEL_IBT=y' "$KDIR/.config" ||
	die "$KNAME: CONFIG_X86_KERNEL_IBT is not set"
stamp "kernel: $KNAME"

# --- modules ----------------------------------------------------------------
if kuw_build_modules "$KDIR" "$WORK" && [ -f "$WORK/src/kunit/ibt_probe.ko" ] &&
	[ -f "$WORK/src/kunit/demo_oops.ko" ]; then
	hres ok "build kunwind.ko, demo_oops.ko, ibt_probe.ko against $KNAME"
else
	hres fail "build kunwind.ko, demo_oops.ko, ibt_probe.ko against $KNAME"
	host_rest_skip "the modules did not build"
	summary "--ktap $HK"
	exit 1
fi
stamp "modules built"
files=(
	"/lib/kunwind/kunwind.ko=$WORK/src/kunwind.ko"
	"/lib/kunwind/kunit/demo_oops.ko=$WORK/src/kunit/demo_oops.ko"
	"/lib/kunwind/kunit/ibt_probe.ko=$WORK/src/kunit/ibt_probe.ko"
	"/guest/backtrace_all.sh=$REPO/scripts/guest/backtrace_all.sh"
	"/guest/internals.sh=$REPO/scripts/guest/internals.sh"
)
if [ -n "$DBG" ]; then
	if make -s -C "$REPO" B="$WORK/gt" "$WORK/gt/kunwind-dump-static" >"$WORK/tools.log" 2>&1; then
		files+=("/bin/kunwind-dump=$WORK/gt/kunwind-dump-static")
		while IFS= read -r -d '' f; do
			if [ -L "$f" ]; then
				files+=("${f#"$DBG/root"}=->$(readlink "$f")")
			else
				files+=("${f#"$DBG/root"}=$f")
			fi
		done < <(find "$DBG/root" \( -type f -o -type l \) -print0)
		hres ok "the vmlinux blob's source: make check-stock's cached debug files of $kver"
	else
		cat "$WORK/tools.log" >&2
		hres fail "build a static kunwind-dump for the guest"
		DBG='' dbgwhy="kunwind-dump did not build"
	fi
else
	hres skip "the vmlinux blob's source" "$dbgwhy"
fi
# What the kernel seals at boot: objtool's .ibt_endbr_seal list of the
# vmlinux, for a test kernel (scripts/ibt_seal.py).  Without the list
# (an unpatched objtool takes the relocations of vmlinux's .eh_frame for
# taken addresses and keeps every ENDBR) the negative control has no
# target: skipped, saying so.  Debian's kernels seal; their headers'
# vmlinux is BTF only (for modules' BTF), not the kernel: no list there
# (the guest's probe checks the control's target is sealed).
seals=1 sealwhy='' SEALED=''
if [ "$KIND" = test ]; then
	SEALED="$WORK/sealed"
	if python3 "$REPO/scripts/ibt_seal.py" "$KDIR/vmlinux" >"$SEALED"; then
		log "$KNAME seals $(wc -l <"$SEALED") functions (.ibt_endbr_seal)"
	else
		seals=0 SEALED=''
		sealwhy="$KNAME seals nothing: no .ibt_endbr_seal in its vmlinux"
	fi
fi
mkconf() { # EMU
	{
		echo "KUW_IBT_EMU=$1"
		echo "KUW_DBG=$([ -n "$DBG" ] && echo 1 || echo 0)"
		printf 'KUW_DBG_WHY=%q\n' "$dbgwhy"
		echo "KUW_IBT_SEALS=$seals"
		printf 'KUW_IBT_SEALS_WHY=%q\n' "$sealwhy"
		# walks with frames ORC stepped (no vmlinux blob) are not reliable
		if [ "$KIND" = stock ] && [ -z "$DBG" ]; then
			echo "export KUW_BT_RELIABLE=no"
		fi
	} >"$WORK/ibt-$1.conf"
}
mkconf bochs
mkconf qemu
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd-bochs.gz" "$REPO/scripts/init/ibt.sh" \
	"${files[@]}" "/etc/kuw-ibt.conf=$WORK/ibt-bochs.conf"
"$REPO/scripts/mkinitramfs.sh" "$WORK/initrd-qemu.gz" "$REPO/scripts/init/ibt.sh" \
	"${files[@]}" "/etc/kuw-ibt.conf=$WORK/ibt-qemu.conf"

# --- Bochs -------------------------------------------------------------------
# In a Debian 13 root (Bochs 3.0 needs glibc 2.38+); bochs-term satisfies
# bochs' dependency on a GUI package with the smallest one.
BR=$(kuw_root trixie)
if ! kuw_root_install "$BR" bochs bochs-term bochsbios vgabios isolinux \
	syslinux-common xorriso >&2; then
	hres fail "Bochs 3.0 with CET, isolinux and xorriso in the Debian 13 root"
	host_rest_skip "no Bochs"
	summary "--ktap $HK"
	exit 1
fi
# shellcheck disable=SC2016 # dpkg-query's format
hres ok "Bochs $(kuw_in_root "$BR" dpkg-query -W -f='${Version}' bochs) with CET, isolinux and xorriso in the Debian 13 root"
tag="$KIND-$REL"
LB="$WORK/ibt-$tag-bochs-last.log"
ISO="$WORK/iso"
mkdir -p "$ISO/isolinux"
cp "$VMLINUZ" "$ISO/vmlinuz"
cp "$WORK/initrd-bochs.gz" "$ISO/initrd.gz"
cp "$BR/usr/lib/ISOLINUX/isolinux.bin" "$BR/usr/lib/syslinux/modules/bios/ldlinux.c32" \
	"$ISO/isolinux/"
# printk.devkmsg=on: the guest's results go through /dev/kmsg (common.sh);
# nokaslr: addresses that match the symbols on the host
cat >"$ISO/isolinux/isolinux.cfg" <<EOF
DEFAULT kuw
PROMPT 0
TIMEOUT 0
LABEL kuw
  KERNEL /vmlinuz
  INITRD /initrd.gz
  APPEND console=ttyS0,115200 nokaslr panic=-1 printk.devkmsg=on
EOF
kuw_in_root "$BR" xorriso -as mkisofs -quiet -o "$WORK/boot.iso" \
	-b isolinux/isolinux.bin -c isolinux/boot.cat -no-emul-boot \
	-boot-load-size 4 -boot-info-table "$ISO" >"$WORK/xorriso.log" 2>&1 ||
	{ cat "$WORK/xorriso.log" >&2; die "xorriso: the boot ISO"; }
cat >"$WORK/bochsrc" <<EOF
memory: guest=512, host=512
romimage: file=/usr/share/bochs/BIOS-bochs-latest
vgaromimage: file=/usr/share/bochs/VGABIOS-lgpl-latest
cpu: model=tigerlake, count=1, ips=${KUNWIND_IBT_IPS:-200000000}
ata0-master: type=cdrom, path=$WORK/boot.iso, status=inserted
boot: cdrom
com1: enabled=1, mode=file, dev=$LB.raw
clock: sync=none, time0=utc
display_library: rfb, options="timeout=0"
mouse: enabled=0
speaker: enabled=0
log: $WORK/bochs.log
panic: action=fatal
error: action=report
info: action=ignore
debug: action=ignore
EOF
# bochs_run TIMEOUT: Bochs until the kernel restarts or panics (its
# serial log says so; Bochs would boot again), or TIMEOUT seconds; prints its CPU seconds and
# how it ended ("restart", "panic", "exit", "timeout")
bochs_run() {
	local tmo=$1 tp bp='' cpu=0 how=timeout end
	: >"$LB.raw"
	end=$(($(date +%s) + tmo))
	# timeout puts itself and Bochs in a process group of their own,
	# which it signals when it is signalled: the one kill below
	# shellcheck disable=SC2016 # expanded by that bash
	timeout -k 10 "$tmo" bash -c '. "$1/scripts/lib.sh"; shift; kuw_in_root "$@"' \
		_ "$REPO" "$BR" unshare -n bochs-bin -q -f "$WORK/bochsrc" \
		</dev/null >"$WORK/bochs.out" 2>&1 &
	tp=$!
	while kill -0 "$tp" 2>/dev/null; do
		[ -n "$bp" ] || bp=$(pgrep -g "$tp" -x bochs-bin | head -n 1 || true)
		[ -z "$bp" ] || cpu=$(ps -o times= -p "$bp" 2>/dev/null || echo "$cpu")
		if grep -q -E 'reboot: Restarting system' "$LB.raw"; then
			how=restart
		elif grep -q -E 'Kernel panic - not syncing' "$LB.raw"; then
			how=panic
		fi
		if [ "$how" != timeout ]; then
			# the rest of the panic's report (panic=-1 restarts
			# right after it, without its end line)
			sleep 3
			break
		fi
		[ "$(date +%s)" -lt "$end" ] || break
		sleep 2
	done
	if kill -0 "$tp" 2>/dev/null; then
		kill "$tp" 2>/dev/null || true
		# Bochs gone within 10 s, or the group is killed
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$tp" 2>/dev/null || break
			sleep 1
		done
		kill -KILL -- "-$tp" 2>/dev/null || true
		wait "$tp" 2>/dev/null || true
	elif wait "$tp"; then
		how="exit"
	fi
	echo "$cpu $how"
}
stamp "booting $KNAME under Bochs (1 CPU, IBT; minutes)"
tb=$(date +%s)
read -r bcpu bhow < <(bochs_run "${KUNWIND_IBT_TIMEOUT:-1500}")
bwall=$(($(date +%s) - tb))
tr -d '\r' <"$LB.raw" >"$LB"
cp -f "$LB" "$CACHE/logs/${LB##*/}"
stamp "Bochs ended ($bhow, ${bwall}s wall, ${bcpu}s CPU; log: $CACHE/logs/${LB##*/})"
hdiag "Bochs: ${bwall}s wall, ${bcpu}s of Bochs' CPU, ended by: $bhow"
if [ "$bhow" = restart ]; then
	hres ok "Bochs: the guest ran to its end (reboot -f)"
else
	tail -n 20 "$WORK/bochs.out" >&2
	grep -i -E 'panic|error' "$WORK/bochs.log" 2>/dev/null | tail -n 10 >&2
	hres fail "Bochs: the guest ran to its end (ended by: $bhow)"
fi
if grep -q 'CET detected: Indirect Branch Tracking enabled' "$LB"; then
	hres ok "Bochs: the kernel says \"CET detected: Indirect Branch Tracking enabled\""
else
	hres fail "Bochs: the kernel says \"CET detected: Indirect Branch Tracking enabled\""
fi
# The log cut in two where the negative control begins: the demo oops
# before it, the control-protection fault after.
cut=$(grep -n 'ibt_probe: sealed: calling' "$LB" | head -n 1 | cut -d: -f1 || true)
if [ -n "$cut" ]; then
	head -n "$((cut - 1))" "$LB" >"$WORK/before.log"
	tail -n "+$cut" "$LB" >"$WORK/after.log"
else
	cp "$LB" "$WORK/before.log"
	: >"$WORK/after.log"
fi
# traces_match NAME LOG FIRST LAST: kunwind's trace of the log's first oops
# is the kernel's, which runs from FIRST to LAST (patterns)
traces_match() {
	local ktr utr nk
	ktr=$(python3 "$REPO/scripts/oops_traces.py" "$2" --kernel || true)
	utr=$(python3 "$REPO/scripts/oops_traces.py" "$2" --kunwind || true)
	[ -n "$DBG" ] || [ "$KIND" = test ] || utr=$(printf '%s\n' "$utr" | sed 's/ (orc)$//')
	nk=$(printf '%s\n' "$ktr" | grep -c . || true)
	if printf '%s\n' "$ktr" | grep -q "$3" && printf '%s\n' "$ktr" | grep -q "$4" &&
		[ "$ktr" = "$utr" ]; then
		hres ok "$1 ($nk frames)"
	else
		python3 "$REPO/scripts/oops_traces.py" "$2" >&2 || true
		hres fail "$1 (kernel $nk frames, kunwind $(printf '%s\n' "$utr" | grep -c . || true))"
	fi
}
traces_match "Bochs: the demo oops: kunwind's trace is the kernel's" \
	"$WORK/before.log" demo_depth5 demo_depth1
# the sealed function (ibt_probe's target), as the probe named it
sealed=$(sed -n 's/.*ibt_probe: sealed: calling \([^ ]*\) at .*/\1/p' "$LB" | head -n 1 || true)
if [ "$seals" = 0 ]; then
	hres skip "Bochs: the indirect call to a sealed function took a control-protection fault" "$sealwhy"
elif [ -n "$sealed" ] && grep -q "Missing ENDBR: $sealed+0x0/" "$WORK/after.log" &&
	grep -q -E 'kernel BUG at ([^ ]*/)?arch/x86/kernel/cet\.c' "$WORK/after.log" &&
	! grep -q "ibt_probe: sealed: $sealed returned" "$WORK/after.log"; then
	hres ok "Bochs: the indirect call to $sealed (sealed) took a control-protection fault: \"Missing ENDBR: $sealed+0x0\", BUG"
else
	grep -E 'ibt_probe|Missing ENDBR|cet.c' "$WORK/after.log" >&2 || true
	hres fail "Bochs: the indirect call to ${sealed:-the sealed function} took a control-protection fault (Missing ENDBR)"
fi
# The #CP oops: the kernel's trace goes on past the exception's pt_regs
# (a nested "RIP: 0010:<sealed function>" block, which scripts/
# oops_traces.py stops at): its frames to </TASK>, the regs' RIP as the
# frame kunwind marks "(pt_regs)"; kunwind's "(orc)" marks left out
cp_kernel() {
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] ?//' "$1" | awk '
		!inside && /^RIP: 0010:/ && !n { sub(/^RIP: 0010:/, ""); print; n++ }
		!inside && /^Call Trace:/ { inside = 1; next }
		!inside { next }
		done { next }
		/^ <\/TASK>/ { done = 1; next }
		/^RIP: 0010:/ { sub(/^RIP: 0010:/, ""); print $0 " (pt_regs)"; next }
		/^ [^ ?<]/ { sub(/^ /, ""); print }'
}
cp_kunwind() {
	sed -E 's/^\[ *[0-9]+\.[0-9]+\] ?//' "$1" | awk '
		/^kunwind: Call Trace:/ { inside = 1; next }
		done { next }
		inside && /^kunwind: end of trace/ { done = 1; next }
		inside && /^kunwind:  / { sub(/^kunwind:  /, ""); sub(/ \(orc\)$/, ""); print }'
}
ktr=$(cp_kernel "$WORK/after.log")
utr=$(cp_kunwind "$WORK/after.log")
nk=$(printf '%s\n' "$ktr" | grep -c . || true)
if [ "$seals" = 0 ]; then
	hres skip "Bochs: the control-protection oops: kunwind's trace is the kernel's" "$sealwhy"
elif [ -n "$sealed" ] && printf '%s\n' "$ktr" | grep -q "^$sealed+0x0/.* (pt_regs)\$" &&
	printf '%s\n' "$ktr" | grep -q '^ip_write+' && [ "$ktr" = "$utr" ]; then
	hres ok "Bochs: the control-protection oops: kunwind's trace is the kernel's ($nk frames, through the pt_regs of the fault at $sealed)"
else
	diff <(printf '%s\n' "$ktr") <(printf '%s\n' "$utr") >&2 || true
	hres fail "Bochs: the control-protection oops: kunwind's trace is the kernel's (kernel $nk frames, kunwind $(printf '%s\n' "$utr" | grep -c . || true))"
fi
# The functions the guest found sealed or not (ibt_probe's "seal NAME
# KIND" lines: kunwind's internals, the control's target) against the
# vmlinux's .ibt_endbr_seal list: sealed at boot exactly when listed.
if [ "$KIND" != test ]; then
	hres skip "Bochs: the functions found sealed are those vmlinux's .ibt_endbr_seal lists" \
		"no vmlinux of $KNAME here (its headers' vmlinux is BTF only)"
elif [ -z "$SEALED" ]; then
	hres fail "Bochs: the functions found sealed are those vmlinux's .ibt_endbr_seal lists ($sealwhy)"
else
	sed -n -E 's/.*ibt_probe: seal ([^ ]+) ([a-z]+) [0-9a-f]+$/\1 \2/p' "$LB" |
		sort -u >"$WORK/probed"
	np=$(wc -l <"$WORK/probed")
	ns=$(awk '$2 == "sealed"' "$WORK/probed" | wc -l)
	wrong=$(awk 'NR == FNR { l[$1] = 1; next }
		($2 == "sealed") != ($1 in l) { printf " %s (%s%s)", $1, $2, ($1 in l) ? ", listed" : ", not listed" }' \
		"$SEALED" "$WORK/probed")
	if [ "$np" -gt 1 ] && [ -z "$wrong" ] && grep -qx nr_context_switches "$SEALED"; then
		hres ok "Bochs: the functions found sealed are those vmlinux's .ibt_endbr_seal lists ($ns of $np probed, nr_context_switches among them; $(wc -l <"$SEALED") listed)"
	else
		sed 's/^/probed: /' "$WORK/probed" >&2
		hres fail "Bochs: the functions found sealed are those vmlinux's .ibt_endbr_seal lists ($np probed; wrong:${wrong:- none}$(grep -qx nr_context_switches "$SEALED" || echo "; nr_context_switches not listed"))"
	fi
fi
# ktap.py on the log with the one expected BUG line (the #CP's, after
# "Missing ENDBR") left out: any other report still fails the run
awk '/Missing ENDBR: / { m = 1 } m && /kernel BUG at ([^ ]*\/)?arch\/x86\/kernel\/cet\.c/ { m = 0; next } { print }' \
	"$LB" >"$WORK/bochs-ktap.log"

# --- QEMU: the same call without IBT --------------------------------------------
LQ="$WORK/ibt-$tag-qemu-last.log"
stamp "booting $KNAME under QEMU (TCG: no IBT)"
tq=$(date +%s)
# one TCG thread for both vCPUs: the kernel patches its own text as it
# boots (static keys, text_poke), and the host's QEMU 7.2 has run stale
# translated code across vCPU threads there (an int3 oops at boot in
# sched_clock_cpu(), seen once in a cold make check)
KUW_TCG_SINGLE=1 kuw_qemu "$VMLINUZ" "$WORK/initrd-qemu.gz" "$LQ" \
	"${KUNWIND_TIMEOUT:-300}" "nokaslr" 512M || true
qwall=$(($(date +%s) - tq))
cp -f "$LQ" "$CACHE/logs/${LQ##*/}"
stamp "QEMU ended (${qwall}s; log: $CACHE/logs/${LQ##*/})"
hdiag "QEMU: ${qwall}s wall"
if grep -q 'CET detected' "$LQ"; then
	hres fail "QEMU: no \"CET detected\" from the kernel (TCG has no CET)"
else
	hres ok "QEMU: no \"CET detected\" from the kernel (TCG has no CET)"
fi
stamp "done ($(( $(date +%s) - t0 ))s)"
hdiag "check-ibt: $(( $(date +%s) - t0 ))s in all (Bochs ${bwall}s, QEMU ${qwall}s)"
summary "--ktap $HK" "--allow-oops $WORK/bochs-ktap.log" "$LQ"
