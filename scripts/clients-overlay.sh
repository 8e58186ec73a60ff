#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The "clients" overlay: Debian's own perf (linux-perf) and bpftrace, with
# everything they depend on, for one Debian release and architecture, as
# an initramfs archive to append to a guest's (the kernel unpacks
# concatenated archives over each other).
#
#   scripts/clients-overlay.sh SUITE DEBARCH [SET]   prints the archive's path
#
# SUITE is bookworm (the clients of Linux 6.1) or trixie (6.12, 7.3);
# DEBARCH amd64 or arm64; SET "all" (the default: linux-perf and bpftrace)
# or "perf" (linux-perf alone: a kernel without CONFIG_BPF_SYSCALL, the
# test kernels, runs no bpftrace, and bpftrace's LLVM and Clang are two
# thirds of the whole).  Built once into $CACHE/clients/SUITE-DEBARCH[-perf]/
# (a lock per overlay: work trees share the cache):
#
#  1. the packages: apt's own resolver (apt-get -s install, the private
#     apt of scripts/debian.sh, an empty dpkg status, DEBARCH as the native
#     architecture) with SUITE and its -updates and -security pinned above
#     everything else and every other suite refused (pin -1), so that the
#     closure is exactly what `apt-get install --no-install-recommends
#     linux-perf bpftrace` installs on an empty SUITE machine;
#  2. apt-get download of those versions, dpkg-deb -x each (nothing runs,
#     nothing is installed on the host);
#  3. what a guest never reads is left out (documentation, locales, the
#     Perl and Python libraries: perf runs no script here; every program
#     but perf and bpftrace: busybox has the rest), the ELF
#     interpreter is linked where the binaries ask for it (trixie's
#     packages are /usr-merged, the base initramfs has no /lib64 link);
#  4. cpio (newc, owner root) | gzip.
#
# manifest (one "package version" a line) and sizes are kept beside it.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

KUW_CLIENTS_RECIPE=1	# bump when what goes into the overlay changes

[ $# = 2 ] || [ $# = 3 ] || die "usage: $0 SUITE DEBARCH [all|perf]"
suite=$1 da=$2 set=${3:-all}
case $suite in bookworm | trixie) ;; *) die "suite $suite: bookworm or trixie" ;; esac
case $da in amd64 | arm64) ;; *) die "arch $da: amd64 or arm64" ;; esac
case $set in
all) KUW_CLIENTS_PKGS="linux-perf bpftrace" sfx= ;;
perf) KUW_CLIENTS_PKGS="linux-perf" sfx=-perf ;;
*) die "set $set: all or perf" ;;
esac

d="$CACHE/clients/$suite-$da$sfx"
out="$d/overlay.cpio.gz"
mkdir -p "$CACHE/clients"
(
	flock -w 1800 9 || die "$d.lock: timeout"
	[ "$(cat "$d/.kuw-ok" 2>/dev/null)" = "$KUW_CLIENTS_RECIPE" ] && exit 0
	t0=$(date +%s)
	log "clients overlay $suite/$da: $KUW_CLIENTS_PKGS and their dependencies (once)"
	rm -rf "$d"
	mkdir -p "$d"
	# The private apt's lists, fresh (kuw_apt updates them once a day).
	kuw_apt -qq --print-uris download linux-perf >/dev/null 2>&1 || true
	{
		for s in $KUW_APT_SUITES bookworm-security trixie-security; do
			case $s in
			"$suite" | "$suite"-*) pr=990 ;;
			*) pr=-1 ;;
			esac
			printf 'Package: *\nPin: release n=%s\nPin-Priority: %s\n\n' "$s" "$pr"
		done
	} >"$d/preferences"
	: >"$d/status"
	mapfile -t conf < <(kuw_apt_conf)
	conf+=(-o "Dir::State::status=$d/status"
		-o "Dir::Etc::Preferences=$d/preferences"
		-o "Dir::Etc::PreferencesParts=/dev/null"
		-o "APT::Architecture=$da"
		-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache=")
	# shellcheck disable=SC2086 # the package list
	apt-get "${conf[@]}" -s --no-install-recommends install $KUW_CLIENTS_PKGS \
		>"$d/resolve.log" 2>&1 || { cat "$d/resolve.log" >&2; die "apt could not resolve $KUW_CLIENTS_PKGS for $suite/$da"; }
	# "Inst NAME (VERSION SUITE [ARCH])", a "[]" after it for a package
	# that breaks none
	sed -n -E 's/^Inst ([^ ]+) \(([^ ]+) .*\[([a-z0-9]+)\]\)( \[.*\])?$/\1 \2 \3/p' \
		"$d/resolve.log" | sort >"$d/manifest"
	[ -s "$d/manifest" ] || die "apt resolved nothing for $KUW_CLIENTS_PKGS ($d/resolve.log)"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/kunwind-debs.XXXXXX")
	chmod 777 "$tmp"	# apt's sandbox user writes there
	# shellcheck disable=SC2046 # one NAME:ARCH=VERSION a package
	if ! (cd "$tmp" && apt-get "${conf[@]}" -q download \
		$(awk '{ print $1 ":" $3 "=" $2 }' "$d/manifest") >"$d/download.log" 2>&1); then
		cat "$d/download.log" >&2
		rm -rf "$tmp"
		die "apt-get download failed ($suite/$da)"
	fi
	r="$d/root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$r" || die "dpkg-deb -x $deb"
	done
	debs=$(du -sm "$tmp" | cut -f1)
	unpacked=$(du -sm "$r" | cut -f1)
	rm -rf "$tmp"
	: "${r:?}"
	rm -rf "$r"/usr/share/doc "$r"/usr/share/man "$r"/usr/share/info \
		"$r"/usr/share/locale "$r"/usr/share/lintian "$r"/usr/share/bug \
		"$r"/usr/share/bash-completion "$r"/usr/share/perl* "$r"/usr/lib/python3* \
		"$r"/usr/lib/*-linux-gnu/perl* "$r"/usr/share/perl5 "$r"/usr/share/zsh \
		"${r:?}"/etc "${r:?}"/var "$r"/usr/share/mime "$r"/usr/lib/*-linux-gnu/gconv
	find "$r"/bin "$r"/sbin "$r"/usr/bin "$r"/usr/sbin -mindepth 1 -maxdepth 1 \
		! -name 'perf*' ! -name 'bpftrace*' -exec rm -rf {} + 2>/dev/null || true
	# The interpreter at the path the binaries name (PT_INTERP).
	interp=$(readelf -lW "$r/usr/bin/perf" |
		sed -n 's/.*Requesting program interpreter: \(.*\)]$/\1/p')
	[ -n "$interp" ] || die "$suite/$da: perf names no interpreter"
	if [ ! -e "$r$interp" ]; then
		f=$(find "$r" -name "${interp##*/}" \( -type f -o -type l \) | head -n 1)
		[ -n "$f" ] || die "$suite/$da: no ${interp##*/} in the packages"
		mkdir -p "$r${interp%/*}"
		ln -s "${f#"$r"}" "$r$interp"
	fi
	(cd "$r" && find . -mindepth 1 | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -6 >"$out.tmp" ||
		die "cpio of $r failed"
	mv -f "$out.tmp" "$out"
	printf 'packages %s (%s MiB), unpacked %s MiB, kept %s MiB, archive %s MiB, built in %ss\n' \
		"$(wc -l <"$d/manifest")" "$debs" "$unpacked" "$(du -sm "$r" | cut -f1)" \
		"$(du -sm "$out" | cut -f1)" $(($(date +%s) - t0)) >"$d/sizes"
	rm -rf "$r"
	echo "$KUW_CLIENTS_RECIPE" >"$d/.kuw-ok"
	log "clients overlay $suite/$da: $(cat "$d/sizes")"
) 9>"$d.lock" || exit 1
echo "$out"
