# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# UEFI Secure Boot under QEMU, as a Debian amd64 machine boots: OVMF with
# Microsoft's keys enrolled (OVMF_VARS_4M.ms.fd) and Secure Boot on, shim
# signed by Microsoft, GRUB and Debian's kernel signed by Debian.  The MOK
# list in the firmware's variable store holds the test bed's MOK, as
# `mokutil --import` and MokManager's enrollment at the next boot leave
# it: shim hands it to the kernel (MokListRT), which then trusts modules
# signed with it; and the kernel locks itself down (integrity) because
# Secure Boot is on.  Sourced by scripts that have sourced lib.sh and
# debian.sh.
#
# Everything comes from Debian's archive (private apt, downloaded once
# into the cache, nothing installed): ovmf, shim-signed,
# grub-efi-amd64-signed of the kernel's release, python3-virt-firmware
# (virt-fw-vars writes the MOK into the variable store; Debian 13's,
# run with the host's python3 and python3-cryptography).  The ESP is a FAT
# image made with dosfstools and mtools.

# kuw_sb_firmware REL: print the directory holding the unpacked firmware,
# shim, GRUB and the variable store with the test MOK enrolled (vars.fd).
kuw_sb_firmware() {
	local rel=$1 code d tmp mok
	code=$(kuw_release_codename "$rel")
	d="$CACHE/secureboot/$code"
	mok=$(dirname "$(kuw_test_mok)")
	if [ ! -f "$d/.kuw-ok" ] || [ "$mok/mok.pem" -nt "$d/.kuw-ok" ]; then
		kuw_install python3-cryptography dosfstools mtools >&2
		log "Secure Boot: OVMF, shim and GRUB of $code (downloaded once)" >&2
		rm -rf "$d" "$d.tmp"
		tmp="$d.tmp"
		mkdir -p "$tmp/debs"
		kuw_apt_download "$tmp/debs" "ovmf/trixie" \
			"shim-signed:amd64/$code" "grub-efi-amd64-signed:amd64/$code" \
			"python3-virt-firmware/trixie" >&2
		for f in "$tmp"/debs/*.deb; do dpkg-deb -x "$f" "$tmp/x"; done
		rm -rf "$tmp/debs"
		# virt-firmware imports importlib_resources (a backport of
		# the standard library's importlib.resources, 3.9+).
		mkdir -p "$tmp/py"
		echo 'from importlib.resources import *  # noqa: F401,F403' \
			>"$tmp/py/importlib_resources.py"
		PYTHONPATH="$tmp/x/usr/lib/python3/dist-packages:$tmp/py" \
			/usr/bin/python3 -m virt.firmware.vars \
			--input "$tmp/x/usr/share/OVMF/OVMF_VARS_4M.ms.fd" \
			--output "$tmp/vars.fd" \
			--add-mok 605dab50-e046-4300-abb6-3dd810dd8b23 "$mok/mok.pem" \
			>"$tmp/vars.log" 2>&1 ||
			{ cat "$tmp/vars.log" >&2; die "virt-fw-vars: the MOK was not enrolled"; }
		touch "$tmp/.kuw-ok"
		mv "$tmp" "$d"
	fi
	echo "$d"
}

# kuw_qemu_sb FW KERNEL INITRD LOG TIMEOUT APPEND [MEM]: kuw_qemu through
# the firmware: an ESP (shim as the removable-media loader, GRUB beside it
# with a grub.cfg that boots KERNEL and INITRD with APPEND), OVMF's code
# with Secure Boot (it needs SMM: q35, smm=on, secure flash), a private
# copy of the variable store.  Returns 0 if the guest ended itself, 124 on
# timeout.
kuw_qemu_sb() {
	local fw=$1 kernel=$2 initrd=$3 logf=$4 tmo=$5 append=$6 mem=${7:-768M}
	local esp="$logf.esp" rc=0 kb
	rm -rf "$esp" "$esp.img"
	mkdir -p "$esp/EFI/BOOT" "$esp/EFI/debian"
	cp "$fw/x/usr/lib/shim/shimx64.efi.signed" "$esp/EFI/BOOT/BOOTX64.EFI"
	cp "$fw/x/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed" "$esp/EFI/BOOT/grubx64.efi"
	cp "$kernel" "$esp/vmlinuz"
	cp "$initrd" "$esp/initrd.gz"
	# Debian's signed GRUB reads grub.cfg from its own directory (the
	# removable-media path) or from EFI/debian.
	printf '%s\n' "set timeout=0" "serial --unit=0 --speed=115200" \
		"terminal_output serial" \
		"linux /vmlinuz console=ttyS0 panic=-1 printk.devkmsg=on $append" \
		"initrd /initrd.gz" "boot" >"$esp/EFI/BOOT/grub.cfg"
	cp "$esp/EFI/BOOT/grub.cfg" "$esp/EFI/debian/grub.cfg"
	kb=$(( $(du -sk "$esp" | cut -f1) * 11 / 10 + 8192 ))
	mkfs.vfat -C "$esp.img" "$kb" >/dev/null
	mcopy -i "$esp.img" -s "$esp"/* ::/
	cp "$fw/vars.fd" "$logf.vars.fd"
	log "booting $(basename "$kernel") through OVMF (Secure Boot), shim and GRUB (tcg, -smp 2, timeout ${tmo}s)"
	timeout -k 5 "$tmo" qemu-system-x86_64 \
		-machine q35,smm=on -accel tcg -cpu max -smp 2 -m "$mem" \
		-global driver=cfi.pflash01,property=secure,value=on \
		-global ICH9-LPC.disable_s3=1 \
		-drive "if=pflash,format=raw,unit=0,readonly=on,file=$fw/x/usr/share/OVMF/OVMF_CODE_4M.secboot.fd" \
		-drive "if=pflash,format=raw,unit=1,file=$logf.vars.fd" \
		-drive "if=virtio,format=raw,file=$esp.img" \
		-nographic -no-reboot -monitor none -serial stdio \
		</dev/null >"$logf.raw" 2>&1 || rc=$?
	# the firmware's screen control sequences go with the carriage returns
	sed -e 's/\x1b\[[0-9;]*[A-Za-z]//g' -e 's/\r//g' "$logf.raw" >"$logf"
	rm -rf "$logf.raw" "$esp" "$esp.img" "$logf.vars.fd"
	return "$rc"
}

# kuw_sb_booted LOG: the kernel saw Secure Boot on, locked itself down
# for it, and loaded the test MOK from shim's MokListRT.
kuw_sb_booted() {
	grep -q 'secureboot: Secure boot enabled' "$1" &&
		grep -q 'Kernel is locked down from EFI Secure Boot' "$1" &&
		grep -q "Loaded X.509 cert 'kunwind test MOK" "$1"
}
