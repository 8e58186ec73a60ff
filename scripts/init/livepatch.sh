#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init for scripts/check-livepatch.sh: kunwind.ko, the vmlinux blob when
# the host gave one (a stock kernel's, from its -dbg package), then
# scripts/guest-livepatch/livepatch.sh as a subtest (livepatch with
# kunwind's reliable hook off and on).
# shellcheck source=common.sh
. /etc/kuw-common.sh
# the host's knobs (LIVEPATCH_LOAD, LIVEPATCH_STALL, LIVEPATCH_HOOKS,
# LIVEPATCH_ROUNDS)
# shellcheck disable=SC1091 # written by the host
[ ! -f /etc/kuw-livepatch ] || . /etc/kuw-livepatch
ktap_plan 3
diag "kernel $(uname -r) cpus $(grep -c ^processor /proc/cpuinfo)"
check "insmod kunwind.ko" insmod "$KUW_MODDIR"/kunwind.ko
load_vmlinux_blob
ktap_subtest "livepatch.sh" sh /guest/livepatch.sh
finish
