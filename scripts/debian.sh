# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
# Debian's archive for the test bed, without touching the host's apt
# configuration: a private apt setup in the cache that sees every suite a
# supported kernel release comes from, and Debian roots (debootstrap) that
# hold each release's own toolchain.  Sourced by scripts/lib.sh.
#
#   kuw_apt ARGS...         apt-get with the private configuration
#                           ($CACHE/apt: its own sources.list, lists and
#                           archives; lists refreshed once a day)
#   kuw_apt_download DIR PKG...
#                           apt-get download PKG... into DIR
#   kuw_release_codename REL
#                           the Debian release whose toolchain builds
#                           kernel release REL (6.1: bookworm, 6.12 and 7.3:
#                           trixie, Debian 13's gcc-14 and binutils 2.44)
#   kuw_toolchain_root REL  "" when the host is that Debian release (its
#                           own compilers build), else the path of a Debian
#                           root in the cache (debootstrap, made once)
#   kuw_root CODENAME [plain]
#                           the path of a Debian CODENAME root in the cache
#                           (debootstrap, made once): bookworm/trixie with
#                           a kernel toolchain; sid with the newest gcc and
#                           binutils only (SFrame v3, GCC 15 CFI: the
#                           differential tests of tests/difftest-new.sh);
#                           "plain": minbase only, the release's updates
#                           and security suites in its sources.list, apt
#                           keeping what it downloads (a machine as a user
#                           has it, for installing packages:
#                           scripts/check-deb.sh)
#   kuw_in_root ROOT CMD... CMD in ROOT (chroot, in a private mount
#                           namespace: /proc, /dev, /tmp, the cache and the
#                           repository bound at their own paths; nothing
#                           stays mounted when it ends); ROOT "" runs CMD
#                           on the host
#   kuw_sid_as DIR          make DIR/as run the sid root's x86_64 gas
#                           (binutils 2.46+: SFrame v3) on the host, through
#                           that root's ld.so (no chroot), and print DIR:
#                           `gcc -BDIR/` assembles with it (kunit/sframe_v3.c)
#   kuw_source_tarball REL  the path of linux-source-REL's tarball: the
#                           installed package's, or downloaded once into
#                           the cache
#   kuw_root_install ROOT PKG...
#                           PKG... installed in ROOT (a toolchain root), or
#                           on the host when ROOT is ""
#   kuw_acache ARGS...      apt-cache with the private configuration
#   kuw_deb_depends PKG     PKG's Depends, one package name a line
#   kuw_stock_kver REL DEBARCH
#                           the ABI name (6.12.118+deb13-amd64) of Debian's
#                           stock kernel of Linux REL: the one the highest
#                           linux-image-DEBARCH of that release depends on
#                           (bookworm(-security): 6.1, trixie(-security):
#                           6.12, trixie-backports: 7.3)
#   kuw_headers_fetch DEBARCH KVER
#                           linux-headers-KVER, its -common and its
#                           linux-kbuild (amd64: kbuild's helpers run here)
#                           unpacked once into $CACHE/headers/<abi>/root,
#                           paths pointed into the cache; prints the
#                           headers' directory (KDIR)

KUW_DEB_MIRROR=${KUNWIND_DEB_MIRROR:-http://deb.debian.org/debian}
KUW_DEB_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

# Suites the private apt configuration lists (the host's own are not
# needed: apt-get download with this configuration sees only these).
KUW_APT_SUITES="bookworm bookworm-updates trixie trixie-updates trixie-backports"

# The package caches are kept (a host's apt.conf.d may turn them off, as
# Debian's container images do: each apt-cache call then takes seconds).
kuw_apt_conf() {
	local d="$CACHE/apt"
	printf '%s\n' \
		"-o" "Dir::Etc::SourceList=$d/sources.list" \
		"-o" "Dir::Etc::SourceParts=/dev/null" \
		"-o" "Dir::State::Lists=$d/lists" \
		"-o" "Dir::Cache=$d/cache" \
		"-o" "Dir::Cache::pkgcache=pkgcache.bin" \
		"-o" "Dir::Cache::srcpkgcache=srcpkgcache.bin" \
		"-o" "Dir::State::status=$d/status" \
		"-o" "APT::Architectures::=amd64" \
		"-o" "APT::Architectures::=arm64" \
		"-o" "APT::Get::List-Cleanup=false" \
		"-o" "APT::Sandbox::User=root"
}

kuw_apt() {
	local d="$CACHE/apt" conf=() s
	mapfile -t conf < <(kuw_apt_conf)
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	[ -f "$d/status" ] || : >"$d/status"
	{
		for s in $KUW_APT_SUITES; do
			echo "deb [arch=amd64,arm64 signed-by=$KUW_DEB_KEYRING] $KUW_DEB_MIRROR $s main"
		done
		echo "deb [arch=amd64,arm64 signed-by=$KUW_DEB_KEYRING] ${KUW_DEB_MIRROR%/debian}/debian-security bookworm-security main"
		echo "deb [arch=amd64,arm64 signed-by=$KUW_DEB_KEYRING] ${KUW_DEB_MIRROR%/debian}/debian-security trixie-security main"
	} >"$d/sources.list.new"
	if ! cmp -s "$d/sources.list.new" "$d/sources.list" ||
		[ -z "$(find "$d/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -n 1)" ]; then
		mv -f "$d/sources.list.new" "$d/sources.list"
		log "private apt: updating lists ($KUW_APT_SUITES)"
		(
			flock -w 900 9 || die "apt lock timeout"
			apt-get "${conf[@]}" -qq update
		) 9>"$CACHE/apt-private.lock" || die "private apt: update failed"
	fi
	rm -f "$d/sources.list.new"
	apt-get "${conf[@]}" "$@"
}

kuw_apt_download() {
	local dir=$1 tmp
	shift
	# Outside the cache and world-writable: apt's sandbox user (_apt).
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-debs.XXXXXX")
	chmod 777 "$tmp"
	if ! (cd "$tmp" && kuw_apt -q download "$@" >/dev/null); then
		rm -rf "$tmp"
		die "apt-get download $* failed"
	fi
	mkdir -p "$dir"
	mv "$tmp"/*.deb "$dir"/
	rm -rf "$tmp"
}

kuw_release_codename() {
	case $1 in
	6.1) echo bookworm ;;
	6.12 | 7.3) echo trixie ;;
	*) die "kernel release '$1': supported are 6.1, 6.12, 7.3" ;;
	esac
}

# The packages a toolchain root holds: the kernel's build dependencies and
# both architectures' compilers.
kuw_root_pkgs() {
	local gcc=gcc-12
	if [ "$1" = sid ]; then
		echo "gcc-15 libc6-dev binutils gcc-15-aarch64-linux-gnu" \
			"binutils-aarch64-linux-gnu"
		return
	fi
	[ "$1" = bookworm ] || gcc=gcc-14
	echo "$gcc gcc make libc6-dev libelf-dev bc flex bison kmod python3 perl" \
		"libssl-dev dwarves cpio xz-utils rsync binutils ccache patch sparse" \
		"$gcc-aarch64-linux-gnu gcc-aarch64-linux-gnu" \
		"binutils-aarch64-linux-gnu file"
}

kuw_toolchain_root() {
	local code host
	code=$(kuw_release_codename "$1")
	host=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	if [ "$host" = "$code" ] && [ -z "${KUNWIND_FORCE_ROOT:-}" ]; then
		echo ""
		return
	fi
	kuw_root "$code"
}

kuw_root() {
	local code=$1 flavour=${2:-} r pkgs name what
	name=$code${flavour:+-$flavour}
	r="$CACHE/roots/$name"
	if [ ! -f "$r/.kuw-ok" ]; then
		[ "$(id -u)" = 0 ] || die "a Debian $code root needs root (debootstrap)"
		kuw_install debootstrap
		mkdir -p "$CACHE/roots"
		(
			flock -w 1800 9 || die "root lock timeout"
			[ -f "$r/.kuw-ok" ] && exit 0
			what="for its toolchain" pkgs=
			if [ "$flavour" = plain ]; then
				what="(minbase, nothing added)"
			else
				pkgs=$(kuw_root_pkgs "$code" | tr ' ' '\n' | grep . | paste -sd,)
			fi
			log "making a Debian $code root $what: $r (once; ~3 min)"
			rm -rf "$r"
			debootstrap --variant=minbase ${pkgs:+--include="$pkgs"} \
				--keyring="$KUW_DEB_KEYRING" \
				"$code" "$r" "$KUW_DEB_MIRROR" >"$CACHE/roots/$name.log" 2>&1 ||
				{ tail -n 20 "$CACHE/roots/$name.log" >&2; die "debootstrap $code failed (log $CACHE/roots/$name.log)"; }
			rm -rf "$r/var/cache/apt/archives"/*.deb
			if [ "$flavour" = plain ]; then
				# The release as a user's sources.list has it (a
				# stock kernel's headers may be in -security only).
				{
					echo "deb $KUW_DEB_MIRROR $code main"
					echo "deb $KUW_DEB_MIRROR $code-updates main"
					echo "deb ${KUW_DEB_MIRROR%/debian}/debian-security $code-security main"
				} >"$r/etc/apt/sources.list"
				# Downloads are kept: the next run installs from here.
				rm -f "$r/etc/apt/apt.conf.d/docker-clean"
				echo 'Binary::apt::APT::Keep-Downloaded-Packages "true";' \
					>"$r/etc/apt/apt.conf.d/10kunwind-keep-debs"
			fi
			touch "$r/.kuw-ok"
		) 9>"$CACHE/roots.lock" || exit 1
	fi
	echo "$r"
}

kuw_in_root() {
	local root=$1
	shift
	if [ -z "$root" ]; then
		"$@"
		return
	fi
	# Bound at their own paths: what a build reads and writes.
	local binds=(/dev /tmp "$CACHE" "$REPO" ${KUW_ROOT_BINDS:-})
	unshare -m --propagation private -- bash -c '
		root=$1; shift; n=$1; shift
		for ((i = 0; i < n; i++)); do
			b=$1; shift
			mkdir -p "$root$b"
			mount --bind "$b" "$root$b" || exit 1
		done
		mount -t proc proc "$root/proc" || exit 1
		exec chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin:/usr/sbin:/sbin \
			HOME=/root LANG=C.UTF-8 ${CCACHE_DIR:+CCACHE_DIR=$CCACHE_DIR} \
			${CCACHE_MAXSIZE:+CCACHE_MAXSIZE=$CCACHE_MAXSIZE} \
			${CCACHE_NOHASHDIR:+CCACHE_NOHASHDIR=$CCACHE_NOHASHDIR} \
			${CCACHE_BASEDIR:+CCACHE_BASEDIR=$CCACHE_BASEDIR} \
			"$@"' kuw-root "$root" "${#binds[@]}" "${binds[@]}" "$@"
}

kuw_sid_as() {
	local dir=$1 r
	r=$(kuw_root sid) || return 1
	mkdir -p "$dir"
	printf '#!/bin/sh\nexec %s --library-path %s %s "$@"\n' \
		"$r/lib64/ld-linux-x86-64.so.2" "$r/usr/lib/x86_64-linux-gnu" \
		"$r/usr/bin/x86_64-linux-gnu-as" >"$dir/as"
	chmod +x "$dir/as"
	"$dir/as" --version 2>/dev/null | head -n 1 | grep -q 'GNU assembler' ||
		{ log "sid's as does not run on this host"; return 1; }
	echo "$dir"
}

kuw_source_tarball() {
	local rel=$1 t d
	t=/usr/src/linux-source-$rel.tar.xz
	if [ -f "$t" ] && [ -z "${KUNWIND_FORCE_ROOT:-}" ]; then
		echo "$t"
		return
	fi
	d="$CACHE/sources/$rel"
	if [ ! -f "$d/.kuw-ok" ]; then
		log "downloading linux-source-$rel (Debian $(kuw_release_codename "$rel"))"
		rm -rf "$d"
		kuw_apt_download "$d/debs" "linux-source-$rel"
		dpkg-deb --fsys-tarfile "$d"/debs/linux-source-"$rel"_*.deb |
			tar -x -C "$d" --strip-components=3 \
				"./usr/src/linux-source-$rel.tar.xz" ||
			die "linux-source-$rel: no usr/src/linux-source-$rel.tar.xz in the package"
		rm -rf "$d/debs"
		touch "$d/.kuw-ok"
	fi
	echo "$d/linux-source-$rel.tar.xz"
}

kuw_root_install() {
	local root=$1 p miss=()
	shift
	if [ -z "$root" ]; then
		kuw_install "$@"
		return
	fi
	for p; do
		kuw_in_root "$root" dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q 'install ok installed' || miss+=("$p")
	done
	[ ${#miss[@]} = 0 ] && return 0
	log "installing ${miss[*]} in the root $root"
	(
		flock -w 900 9 || die "root lock timeout"
		kuw_in_root "$root" sh -c 'apt-get -qq update &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
				--no-install-recommends "$@"' sh "${miss[@]}" >/dev/null
	) 9>"$CACHE/roots.lock"
}

kuw_acache() {
	local conf=()
	mapfile -t conf < <(kuw_apt_conf)
	apt-cache "${conf[@]}" "$@"
}

kuw_deb_depends() {
	kuw_acache show --no-all-versions "$1" 2>/dev/null |
		sed -n 's/^Depends: //p' | head -n 1 |
		tr ',|' '\n\n' | sed -E 's/^ *//; s/[ (].*//; s/:.*//' | grep .
}

# the apt architecture qualifier of a package of DEBARCH (none for amd64:
# the host's)
kuw_deb_q() {
	[ "$1" = amd64 ] || echo ":$1"
}

# kuw_deb_meta_version REL META: the highest version of package META whose
# upstream release is REL (6.1: 6.1.192-2, 7.3: 7.3.4-1~bpo13+1)
kuw_deb_meta_version() {
	local rel=$1 v best=
	kuw_apt -qq --print-uris download linux-headers-amd64 >/dev/null 2>&1 || true	# lists fresh
	while read -r v; do
		case $v in "$rel".*) ;; *) continue ;; esac
		if [ -z "$best" ] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v
		fi
	done < <(kuw_acache madison "$2" | awk -F' *[|] *' '{print $2}')
	echo "$best"
}

kuw_stock_kver() {
	local rel=$1 da=$2 mv p
	mv=$(kuw_deb_meta_version "$rel" "linux-image-$da$(kuw_deb_q "$da")")
	[ -n "$mv" ] || return 1
	p=$(kuw_deb_depends "linux-image-$da$(kuw_deb_q "$da")=$mv" |
		grep -E "^linux-image-${rel//./\\.}\\..*-$da\$" | head -n 1)
	[ -n "$p" ] || return 1
	echo "${p#linux-image-}"
}

kuw_headers_fetch() {
	local da=$1 kver=$2 abi d deps common kbuild deb
	abi=${kver%-"$da"}
	d="$CACHE/headers/$abi"
	mkdir -p "$d"
	(
		flock -w 900 9 || die "headers lock timeout ($d)"
		[ -f "$d/.kuw-ok-$da" ] && exit 0
		deps=$(kuw_deb_depends "linux-headers-$kver$(kuw_deb_q "$da")")
		common=$(grep -E '^linux-headers-.*-common(-rt)?$' <<<"$deps" | head -n 1)
		kbuild=$(grep -E '^linux-kbuild-' <<<"$deps" | head -n 1)
		[ -n "$common" ] && [ -n "$kbuild" ] ||
			die "linux-headers-$kver: no -common or linux-kbuild dependency ($deps)"
		log "downloading linux-headers-$kver, $common, $kbuild"
		rm -rf "$d/debs"
		kuw_apt_download "$d/debs" "linux-headers-$kver$(kuw_deb_q "$da")" \
			"$common" "$kbuild:amd64"
		for deb in "$d"/debs/*.deb; do
			dpkg-deb -x "$deb" "$d/root" || die "dpkg-deb -x $deb"
		done
		rm -rf "$d/debs"
		# The flavour's Makefile names the common tree and itself by
		# absolute path (KBUILD_OUTPUT= in 6.12+); links may too.
		sed -i "s|/usr/src/|$d/root/usr/src/|g" \
			"$d/root/usr/src/linux-headers-$kver/Makefile"
		find "$d/root" -type l -lname '/*' -print0 |
			while IFS= read -r -d '' l; do
				ln -sfn "$d/root$(readlink "$l")" "$l"
			done
		touch "$d/.kuw-ok-$da"
	) 9>"$d.lock" || return 1
	echo "$d/root/usr/src/linux-headers-$kver"
}

# kuw_stock_image DEBARCH KVER: Debian's stock kernel KVER
# (linux-image-KVER; from 7.x its linux-binary-KVER and
# linux-modules-KVER) unpacked once into $CACHE/stock/KVER/root, as
# scripts/check-stock.sh keeps it (the same directory and marker: either
# fills it for the other).  Nothing is installed.  Prints that root.
kuw_stock_image() {
	local da=$1 kver=$2 st q p pk d
	q=$(kuw_deb_q "$da")
	st="$CACHE/stock/$kver"
	mkdir -p "$CACHE/stock"
	(
		flock -w 900 9 || die "$st.img.lock: timeout"
		[ -f "$st/.kuw-ok" ] && exit 0
		log "downloading linux-image-$kver"
		rm -rf "$st"
		pk=("linux-image-$kver$q")
		for p in $(kuw_deb_depends "linux-image-$kver$q"); do
			case $p in
			"linux-binary-$kver" | "linux-modules-$kver") pk+=("$p$q") ;;
			esac
		done
		kuw_apt_download "$st/debs" "${pk[@]}"
		for d in "$st"/debs/*.deb; do
			dpkg-deb -x "$d" "$st/root" || die "dpkg-deb -x $d"
		done
		rm -rf "$st/debs"
		touch "$st/.kuw-ok"
	) 9>"$st.img.lock" || return 1
	echo "$st/root"
}
