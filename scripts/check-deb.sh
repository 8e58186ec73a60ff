#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-deb: kunwind installed the Debian way, and signed.
#
#  1. dpkg-buildpackage -us -uc -b in a copy of the repository (no git
#     needed): kunwind-dkms (all) and kunwind-tools (amd64); what the
#     packages hold (dkms.conf without POST_INSTALL, the udev rule at
#     /dev/kunwind/load and /usr/sbin/kunwind-dump)
#  2. lintian on them (as nobody when it can; --pedantic, tags shown): no
#     error, no warning
#  3. the test MOK key pair of the cache (kuw_test_mok)
#  4. for Debian 12 with its stock kernel 6.1.0-N-amd64, and Debian 13 with
#     6.12.N+deb13-amd64 (kuw_stock_kver), in a plain minbase root of that
#     release (kuw_root CODENAME plain, in the cache, kept between runs):
#       - the test key at /var/lib/dkms/mok.key and mok.pub, as a user who
#         enrolled a key has it (DKMS signs with it);
#       - apt-get install ./kunwind-dkms_*.deb ./kunwind-tools_*.deb
#         linux-headers-<kver> (the headers and DKMS's dependencies stay
#         installed in the root: the next run installs only the packages);
#       - dkms autoinstall -k <kver>: in a chroot `uname -r` is the host's
#         kernel, so the postinst's own build does not target it by itself;
#       - the module is installed under /lib/modules/<kver>/updates/dkms/,
#         `modinfo -F signer` is the test key's CN, and its PKCS#7
#         signature verifies against the test certificate with openssl
#         (and fails against another key and after one byte changed); the
#         loader runs and the udev rule is in place;
#       - apt-get remove: DKMS removed the module, the sources, its tree,
#         the loader and the rule; apt-get purge: dpkg knows neither package.
#
# Root only (debootstrap, chroot, apt); installs what it needs on the host
# (dpkg-dev, debhelper, dh-dkms, lintian, openssl, debootstrap) and needs
# no input.  Times of each step are printed.  Knob: KUNWIND_DEB_RELEASES
# (default "6.1 6.12").
#
# Results: a KTAP file parsed by scripts/ktap.py; last line "N passed, N
# failed" (", N skipped").
unset ARCH
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

RELS=${KUNWIND_DEB_RELEASES:-6.1 6.12}
t0=$(date +%s)
stamp() { log "[$(($(date +%s) - t0))s] $*"; }
[ "$(id -u)" = 0 ] || die "make check-deb needs root (debootstrap, chroot, apt)"
export DEBIAN_FRONTEND=noninteractive	# kuw_install's apt-get on the host
kuw_install dpkg-dev debhelper dh-dkms lintian fakeroot openssl rsync \
	debootstrap xz-utils zstd python3

WORK=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-deb.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
chmod 755 "$WORK"	# lintian runs as nobody
mkdir -p "$CACHE/logs"
HK="$WORK/deb.ktap"
nrel=$(wc -w <<<"$RELS")
printf 'KTAP version 1\n1..%d\n' $((4 + nrel * 7)) >"$HK"
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
	echo "deb: $line"
}
diag() { # lines of diagnostics, before a result
	sed 's/^/# /' | tee -a "$HK" >&2
}
finish() {
	local out rc
	set +e
	out=$(python3 "$REPO/scripts/ktap.py" --quiet --ktap "$HK")
	rc=$?
	set -e
	cp -f "$HK" "$CACHE/logs/deb-last.ktap"
	printf '%s\n' "$out"
	exit "$rc"
}

# --- build ------------------------------------------------------------------
B="$WORK/build"
mkdir -p "$B"
rsync -a --exclude=.git --exclude=/build --exclude='*.o' --exclude='*.ko' \
	--exclude='.*.cmd' "$REPO/" "$B/kunwind/"
ts=$(date +%s)
if (cd "$B/kunwind" && nice dpkg-buildpackage -us -uc -b) >"$WORK/build.log" 2>&1; then
	bt=$(($(date +%s) - ts))
	hres ok "dpkg-buildpackage -us -uc -b ($(kuw_dur $bt))"
else
	tail -n 30 "$WORK/build.log" | diag
	hres fail "dpkg-buildpackage -us -uc -b"
	finish
fi
cp -f "$WORK/build.log" "$CACHE/logs/deb-build-last.log"
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO/dkms.conf")
DKMS_DEB=$(ls "$B"/kunwind-dkms_*_all.deb)
TOOLS_DEB=$(ls "$B"/kunwind-tools_*_amd64.deb)
stamp "built $(basename "$DKMS_DEB") $(basename "$TOOLS_DEB")"

# What they hold: the module's sources and the packaged dkms.conf (no
# POST_INSTALL: the loader is kunwind-tools'), the loader at /usr/sbin, the
# udev rule that runs it, at the control device's path.
X="$WORK/x"
mkdir -p "$X"
dpkg-deb -x "$DKMS_DEB" "$X"
dpkg-deb -x "$TOOLS_DEB" "$X"
cont_ok() {
	local s="$X/usr/src/kunwind-$ver" r ok=0
	# debhelper's place for rules: /lib/udev (Debian 12's), /usr/lib/udev
	r=$(ls "$X"/lib/udev/rules.d/90-kunwind.rules \
		"$X"/usr/lib/udev/rules.d/90-kunwind.rules 2>/dev/null | head -n 1)
	[ -n "$r" ] || { echo "no udev rule 90-kunwind.rules"; r=/nonexistent; }
	if [ ! -f "$s/dkms.conf" ] || [ ! -f "$s/Kbuild" ] || [ ! -f "$s/module/main.c" ]; then
		echo "no sources or dkms.conf under /usr/src/kunwind-$ver"
		ok=1
	fi
	! grep -q '^POST_INSTALL' "$s/dkms.conf" 2>/dev/null || { echo "packaged dkms.conf has a POST_INSTALL"; ok=1; }
	[ ! -e "$s/kunit" ] || { echo "the test modules are packaged"; ok=1; }
	[ -x "$X/usr/sbin/kunwind-dump" ] || { echo "no /usr/sbin/kunwind-dump"; ok=1; }
	grep -q 'TEST=="/dev/kunwind/load"' "$r" 2>/dev/null || { echo "$r: no TEST==\"/dev/kunwind/load\""; ok=1; }
	grep -q '/usr/sbin/kunwind-dump load' "$r" 2>/dev/null || { echo "$r: does not run /usr/sbin/kunwind-dump"; ok=1; }
	! grep -rq '/usr/local' "$r" "$s/dkms.conf" || { echo "/usr/local named"; ok=1; }
	[ -z "$(find "$X" -path '*/usr/local*' -print -quit)" ] || { echo "files under /usr/local"; ok=1; }
	return "$ok"
}
if cont_ok >"$WORK/cont.log"; then
	hres ok "packages hold /usr/src/kunwind-$ver (dkms.conf, no POST_INSTALL), /usr/sbin/kunwind-dump, $(cd "$X" && ls ./lib/udev/rules.d/90-kunwind.rules ./usr/lib/udev/rules.d/90-kunwind.rules 2>/dev/null | head -n 1 | cut -c2-) (/dev/kunwind/load)"
else
	diag <"$WORK/cont.log"
	hres fail "packages hold the sources, dkms.conf, the loader and the udev rule"
fi

# --- lintian ----------------------------------------------------------------
ts=$(date +%s)
lint=(lintian -I --pedantic --fail-on error --fail-on warning "$B"/kunwind_*_amd64.changes)
if command -v runuser >/dev/null && id nobody >/dev/null 2>&1; then
	chmod -R a+rX "$B"
	lint=(runuser -u nobody -- env HOME="$WORK" "${lint[@]}")
fi
if "${lint[@]}" >"$WORK/lintian.log" 2>&1; then
	lr=ok
else
	lr=fail
fi
tags=$(grep -c '^[EWIPX]: ' "$WORK/lintian.log" || true)
[ "$tags" = 0 ] || diag <"$WORK/lintian.log"
hres "$lr" "lintian --pedantic: no error or warning ($tags tags, $(lintian --version | sed 's/^Lintian v//'), $(kuw_dur $(($(date +%s) - ts))))"

# --- the test MOK -------------------------------------------------------------
MOK=$(kuw_test_mok)
MOKD=${MOK%/*}
if [ -s "$MOKD/mok.key" ] && openssl x509 -inform DER -in "$MOKD/mok.pub" -noout 2>/dev/null &&
	[ "$(openssl x509 -inform DER -in "$MOKD/mok.pub" -noout -pubkey)" = \
		"$(openssl pkey -in "$MOKD/mok.key" -pubout)" ]; then
	hres ok "test MOK in the cache: mok.key, mok.pub (DER), mok.pem ($KUW_MOK_CN)"
else
	hres fail "test MOK in the cache: mok.key matches mok.pub"
fi
# Another key: the signature must not verify against it.
openssl req -new -x509 -nodes -batch -subj "/CN=not the MOK" -days 1 \
	-newkey rsa:2048 -keyout "$WORK/other.key" -out "$WORK/other.pem" 2>/dev/null

# modsig_split KO DIR: the module's content and its PKCS#7 signature
# (DIR/content, DIR/sig.p7) from the appended signature: content, PKCS#7
# (DER), struct module_signature (12 bytes: algo, hash, id_type (2:
# PKCS#7), signer_len, key_id_len, 3 pad, __be32 sig_len), then the
# marker "~Module signature appended~\n" (28 bytes).
modsig_split() {
	local ko=$1 d=$2 size tail_ sl idt
	size=$(stat -c %s "$ko")
	tail_=$(tail -c 28 "$ko")
	[ "$tail_" = "~Module signature appended~" ] || { echo "no signature marker"; return 1; }
	read -r idt sl < <(tail -c 40 "$ko" | head -c 12 |
		od -An -tu1 | awk '{ print $3, (($9 * 256 + $10) * 256 + $11) * 256 + $12 }')
	[ "$idt" = 2 ] || { echo "signature id_type $idt, not PKCS#7"; return 1; }
	if [ "$sl" -le 0 ] || [ "$sl" -ge $((size - 40)) ]; then
		echo "bad sig_len $sl"
		return 1
	fi
	head -c $((size - 40 - sl)) "$ko" >"$d/content"
	tail -c $((40 + sl)) "$ko" | head -c "$sl" >"$d/sig.p7"
}
# modsig_verify DIR CERT: openssl cms checks the detached signature of
# DIR/content against CERT (and only it: it is the trust anchor).
modsig_verify() {
	openssl cms -verify -binary -inform DER -in "$1/sig.p7" -content "$1/content" \
		-certfile "$2" -CAfile "$2" -purpose any -out /dev/null 2>>"$1/verify.log"
}

# --- each release: install, build, sign, remove ---------------------------------
# deb_release REL
deb_release() {
	local rel=$1 code kver root r log tr t1 n ko f sg R s mods built
	code=$(kuw_release_codename "$rel")
	R="$WORK/$code"
	mkdir -p "$R"
	log="$CACHE/logs/deb-$code-last.log"
	: >"$log"
	tr=$(date +%s)
	n="Debian $code ($rel)"
	if ! kver=$(kuw_stock_kver "$rel" amd64) || [ -z "$kver" ]; then
		for s in "install" "module built" "signer" "signature" "loader and udev rule" "remove" "purge"; do
			hres skip "$n: $s" "no stock kernel of $rel in apt's lists"
		done
		return 0
	fi
	root=$(kuw_root "$code" plain)
	# in_root CMD...: CMD in the root, output to the log
	in_root() {
		echo "+ $*" >>"$log"
		kuw_in_root "$root" env DEBIAN_FRONTEND=noninteractive "$@" \
			</dev/null >>"$log" 2>&1
	}
	# A run stopped half-way leaves the packages: out first.
	in_root sh -c 'dpkg-query -W kunwind-dkms kunwind-tools >/dev/null 2>&1 &&
		apt-get purge -y -q kunwind-dkms kunwind-tools || true'
	# The test key where DKMS looks for its signing key.
	install -d -m 0755 "$root/var/lib/dkms"
	install -m 0600 "$MOKD/mok.key" "$root/var/lib/dkms/mok.key"
	install -m 0644 "$MOKD/mok.pub" "$root/var/lib/dkms/mok.pub"
	rm -rf "$root/var/tmp/kunwind-debs"
	install -d -m 0755 "$root/var/tmp/kunwind-debs"
	install -m 0644 "$DKMS_DEB" "$TOOLS_DEB" "$root/var/tmp/kunwind-debs/"
	t1=$(date +%s)
	# apt's lists: refreshed once a day, or when they do not have the
	# headers (a warm run installs from the root's archives)
	if { { [ -n "$(find "$root/var/lib/apt/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n 1)" ] &&
		in_root apt-cache show "linux-headers-$kver"; } ||
		in_root apt-get update -q; } &&
		in_root apt-get install -y -q --no-install-recommends \
			"/var/tmp/kunwind-debs/${DKMS_DEB##*/}" \
			"/var/tmp/kunwind-debs/${TOOLS_DEB##*/}" "linux-headers-$kver"; then
		hres ok "$n: apt-get install ./kunwind-dkms ./kunwind-tools linux-headers-$kver ($(kuw_dur $(($(date +%s) - t1))))"
	else
		tail -n 30 "$log" | diag
		hres fail "$n: apt-get install ./kunwind-dkms ./kunwind-tools linux-headers-$kver"
	fi
	# The build for the stock kernel, explicitly: the chroot's uname -r is
	# the host's.  The package's postinst (or the headers' DKMS hook) has
	# usually built it already, for every kernel under /lib/modules with
	# headers; then this finds nothing to do.
	built=autoinstall
	grep -q "^Building initial module.* for $kver" "$log" && built=postinst
	in_root dkms autoinstall -k "$kver" || true
	in_root dkms status -m kunwind
	ko=
	for f in "$root/lib/modules/$kver/updates/dkms/kunwind.ko"*; do
		[ -f "$f" ] && { ko=$f; break; }
	done
	if [ -n "$ko" ] && kuw_in_root "$root" dkms status -m kunwind -k "$kver" 2>/dev/null |
		grep -q "installed"; then
		hres ok "$n: dkms built and installed ${ko#"$root"} (built by the $built)"
	else
		tail -n 30 "$log" | diag
		f="$root/var/lib/dkms/kunwind/$ver/build/make.log"
		[ ! -f "$f" ] || tail -n 20 "$f" | diag
		hres fail "$n: dkms built and installed /lib/modules/$kver/updates/dkms/kunwind.ko"
	fi
	# The signature: modinfo's signer, then openssl on the module as dkms
	# installed it (Debian 13: compressed as the kernel's modules are).
	sg=$(kuw_in_root "$root" modinfo -F signer "${ko#"$root"}" 2>/dev/null || true)
	if [ -n "$ko" ] && [ "$sg" = "$KUW_MOK_CN" ]; then
		hres ok "$n: modinfo -F signer: $sg"
	else
		echo "signer: '${sg}'" | diag
		hres fail "$n: modinfo -F signer is the test key's CN"
	fi
	case $ko in
	*.ko) cp "$ko" "$R/kunwind.ko" ;;
	*.ko.xz) xz -dc "$ko" >"$R/kunwind.ko" ;;
	*.ko.zst) zstd -qdc "$ko" >"$R/kunwind.ko" ;;
	*.ko.gz) gzip -dc "$ko" >"$R/kunwind.ko" ;;
	*) : >"$R/kunwind.ko" ;;
	esac
	if modsig_split "$R/kunwind.ko" "$R" >"$R/split.log" 2>&1 &&
		modsig_verify "$R" "$MOK" &&
		! modsig_verify "$R" "$WORK/other.pem" &&
		cp "$R/content" "$R/content.orig" &&
		printf '\x90' | dd of="$R/content" bs=1 seek=$(($(stat -c %s "$R/content") / 2)) \
			conv=notrunc status=none &&
		! modsig_verify "$R" "$MOK"; then
		hres ok "$n: PKCS#7 signature ($(stat -c %s "$R/sig.p7") bytes) verifies against mok.pem (not against another key, nor after a byte changed)"
	else
		cat "$R/split.log" "$R/verify.log" 2>/dev/null | diag
		hres fail "$n: the module's signature verifies against mok.pem, only"
	fi
	if kuw_in_root "$root" /usr/sbin/kunwind-dump --help >/dev/null 2>&1 &&
		r=$(kuw_in_root "$root" sh -c 'cat /lib/udev/rules.d/90-kunwind.rules ||
			cat /usr/lib/udev/rules.d/90-kunwind.rules' 2>/dev/null) &&
		grep -q 'TEST=="/dev/kunwind/load"' <<<"$r" &&
		grep -q '/usr/sbin/kunwind-dump load' <<<"$r"; then
		hres ok "$n: /usr/sbin/kunwind-dump runs, the udev rule 90-kunwind.rules runs it"
	else
		hres fail "$n: /usr/sbin/kunwind-dump runs, the udev rule 90-kunwind.rules runs it"
	fi
	# Removal: DKMS takes the module out (the package's prerm), dpkg the
	# rest; the user's key stays.
	t1=$(date +%s)
	in_root apt-get remove -y -q kunwind-dkms kunwind-tools || true
	mods=$(find "$root/lib/modules/$kver" "$root/usr/lib/modules/$kver" -name 'kunwind.ko*' 2>/dev/null || true)
	left=()
	[ -z "$mods" ] || left+=("$mods")
	for f in "/usr/src/kunwind-$ver" /var/lib/dkms/kunwind /usr/sbin/kunwind-dump \
		/lib/udev/rules.d/90-kunwind.rules /usr/lib/udev/rules.d/90-kunwind.rules; do
		[ ! -e "$root$f" ] || left+=("$f")
	done
	if [ ${#left[@]} = 0 ] && [ -f "$root/var/lib/dkms/mok.key" ] &&
		! kuw_in_root "$root" dkms status -m kunwind 2>/dev/null | grep -q .; then
		hres ok "$n: apt-get remove: module, sources, dkms tree, loader and rule gone ($(kuw_dur $(($(date +%s) - t1))))"
	else
		printf 'left: %s\n' "${left[@]}" | diag
		hres fail "$n: apt-get remove leaves nothing of kunwind"
	fi
	in_root apt-get purge -y -q kunwind-dkms kunwind-tools || true
	# shellcheck disable=SC2016 # dpkg-query's format
	if ! kuw_in_root "$root" dpkg-query -W -f='${db:Status-Abbrev}\n' kunwind-dkms kunwind-tools 2>/dev/null | grep -q '^[a-z][^n]'; then
		hres ok "$n: apt-get purge: dpkg knows neither package"
	else
		hres fail "$n: apt-get purge: dpkg knows neither package"
	fi
	rm -rf "$root/var/tmp/kunwind-debs"
	stamp "$n, $kver: $(kuw_dur $(($(date +%s) - tr))) (log $log)"
}

for rel in $RELS; do
	code=$(kuw_release_codename "$rel")
	# the roots are shared by work trees: one test in each at a time
	mkdir -p "$CACHE/roots"
	exec 8>"$CACHE/roots/$code-plain.test.lock"
	flock -w 1800 8 || die "$CACHE/roots/$code-plain.test.lock: timeout"
	deb_release "$rel"
	exec 8>&-
done
stamp "done"
finish
