#!/bin/sh
# PID 1 of the VM test's root file system, in place of systemd (which adds seconds per boot under
# QEMU's software emulation): mounts, QEMU user-mode networking (host at 10.0.2.2), then
# canopy-daemon in the foreground with its log on the serial console. /data is the second disk
# (the device's identity, configuration and the daemon's state: they outlive slot switches);
# /boot-env is the boot partition holding GRUB's grubenv.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
mount -t ext4 /dev/vdb /data
mount -t ext2 /dev/vda1 /boot-env
busybox ip link set lo up
busybox ip link set eth0 up
busybox ip addr add 10.0.2.15/24 dev eth0
busybox ip route add default via 10.0.2.2
slot=$(sed -n 's/.*canopy_slot=\([ab]\).*/\1/p' /proc/cmdline)
echo "canopy-vm: booted slot=$slot image=$(cat /etc/canopy-image)" >/dev/console
/usr/local/bin/node /usr/local/lib/canopy/canopy-daemon.mjs --config /data/canopy/config.json >/dev/console 2>&1
echo "canopy-vm: canopy-daemon exited with $?" >/dev/console
sync
exec sleep 100000
