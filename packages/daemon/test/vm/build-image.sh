#!/usr/bin/env bash
# Builds the VM test's disk: an MBR disk with GRUB (BIOS) in its first MiB, a boot partition holding
# grub.cfg and grubenv, and two root slots; plus the root file system images the test releases.
# Everything comes from Debian's packages (debootstrap, the kernel .deb, busybox-static) except
# Node: Debian 12's nodejs is 18 and the daemon needs 20, so the host's node binary is copied.
# Usage: build-image.sh OUT_DIR DAEMON_BUNDLE NODE_BINARY MIRROR [DEBOOTSTRAP_TAR]  (root: chroot)
# DEBOOTSTRAP_TAR: the debootstrap tree is unpacked from it when it exists, else saved to it.
set -euo pipefail
out=$1 daemon=$2 node=$3 mirror=$4 cache=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/canopy-vm-build.XXXXXX")
trap 'umount -R "$work/root/proc" "$work/root/sys" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$out"
step() { echo "[$(date +%T)] $*"; }

root=$work/root
if [ -n "$cache" ] && [ -f "$cache" ]; then
  step "debootstrap tree from $cache"
  mkdir -p "$root" && tar -xf "$cache" -C "$root"
else
  step "debootstrap (minbase + grub-common for grub-editenv, busybox for ip and reboot)"
  debootstrap --variant=minbase --include=grub-common,busybox bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -30 "$work/debootstrap.log"; exit 1; }
  rm -rf "$root"/usr/share/{doc,man,locale,info} "$root"/var/cache/apt/* "$root"/var/lib/apt/lists/*
  if [ -n "$cache" ]; then tar -cf "$cache.tmp" -C "$root" . && mv "$cache.tmp" "$cache"; fi
fi

step "kernel and busybox-static from Debian's packages"
kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/{print $2; exit}')
(cd "$work" && apt-get download -q "$kpkg" busybox-static >/dev/null 2>&1)
mkdir -p "$work/kernel" "$work/bb"
dpkg-deb -x "$work"/linux-image-*.deb "$work/kernel"
dpkg-deb -x "$work"/busybox-static_*.deb "$work/bb"
kver=${kpkg#linux-image-}
mods=$work/kernel/lib/modules/$kver/kernel

step "initramfs: busybox-static, the virtio and ext4 modules, init (initramfs-init.sh)"
ird=$work/initramfs
mkdir -p "$ird"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$work/bb/bin/busybox" "$ird/bin/busybox"
# Load order = dependency order (no modprobe in the initramfs).
for m in drivers/virtio/virtio_ring.ko drivers/virtio/virtio.ko drivers/virtio/virtio_pci_legacy_dev.ko \
  drivers/virtio/virtio_pci_modern_dev.ko drivers/virtio/virtio_pci.ko drivers/block/virtio_blk.ko \
  net/core/failover.ko drivers/net/net_failover.ko drivers/net/virtio_net.ko lib/crc16.ko fs/mbcache.ko \
  fs/jbd2/jbd2.ko crypto/crc32c_generic.ko fs/ext4/ext4.ko; do
  cp "$mods/$m" "$ird/lib/modules/"; basename "$m" >>"$ird/lib/modules/order"
done
install -m 755 "$here/initramfs-init.sh" "$ird/init"
mkdir -p "$root/boot"
(cd "$ird" && find . | cpio -o -H newc --quiet | gzip -1 >"$root/boot/initrd.img")
cp "$work/kernel/boot/vmlinuz-$kver" "$root/boot/vmlinuz"

step "root file system: node, canopy-daemon, init, reboot and health check"
install -m 755 "$node" "$root/usr/local/bin/node"
install -D -m 644 "$daemon" "$root/usr/local/lib/canopy/canopy-daemon.mjs"
install -m 755 "$here/guest-init.sh" "$root/sbin/canopy-init"
printf '#!/bin/sh\nsync\nexec busybox reboot -f\n' >"$root/usr/local/sbin/canopy-reboot"
chmod 755 "$root/usr/local/sbin/canopy-reboot"
mkdir -p "$root/data" "$root/boot-env"

# One root file system image per release the test makes: same tree, its own name and health check.
slot_image() { # name health-exit
  echo "$1" >"$root/etc/canopy-image"
  printf '#!/bin/sh\necho "canopy-vm: health check on %s exits %s" >/dev/console\nexit %s\n' "$1" "$2" "$2" >"$root/usr/local/sbin/canopy-health-check"
  chmod 755 "$root/usr/local/sbin/canopy-health-check"
  local kib; kib=$(du -sk --apparent-size "$root" | cut -f1)
  rm -f "$out/$1.ext4"
  mkfs.ext4 -q -F -L "rootfs" -d "$root" "$out/$1.ext4" "$((kib * 115 / 100 / 1024 + 16))M"
}
step "slot images (mkfs.ext4 -d)"
slot_image v1 0
slot_image v2-good 0
slot_image v2-bad 1

step "boot partition: grub.cfg, grubenv (canopy_active_slot=a)"
boot=$work/boot
mkdir -p "$boot/grub"
cp "$here/grub.cfg" "$boot/grub/grub.cfg"
grub-editenv "$boot/grub/grubenv" create
grub-editenv "$boot/grub/grubenv" set canopy_active_slot=a
mkfs.ext2 -q -F -L boot -d "$boot" "$work/boot.ext2" 8M

step "disk: MBR, GRUB core in the first MiB, boot, slot a (v1), slot b (v1)"
slot_mib=$(( ($(stat -c %s "$out/v1.ext4") + (1 << 20) - 1) >> 20 ))
for f in v2-good v2-bad; do s=$(( ($(stat -c %s "$out/$f.ext4") + (1 << 20) - 1) >> 20 )); [ "$s" -gt "$slot_mib" ] && slot_mib=$s; done
slot_mib=$((slot_mib + 32))
disk=$out/disk.img
rm -f "$disk"
truncate -s "$((1 + 8 + 2 * slot_mib))M" "$disk"
sfdisk -q "$disk" <<SFDISK
label: dos
start=1MiB, size=8MiB, type=83, bootable
size=${slot_mib}MiB, type=83
size=${slot_mib}MiB, type=83
SFDISK
grub-mkimage -O i386-pc -o "$work/core.img" -p '(hd0,msdos1)/grub' biosdisk part_msdos ext2 normal linux loadenv test echo serial terminal
[ "$(stat -c %s "$work/core.img")" -lt $((1023 * 1024)) ] || { echo "core.img does not fit before the first partition"; exit 1; }
dd if=/usr/lib/grub/i386-pc/boot.img of="$disk" bs=440 count=1 conv=notrunc status=none
dd if="$work/core.img" of="$disk" bs=512 seek=1 conv=notrunc status=none
dd if="$work/boot.ext2" of="$disk" bs=1M seek=1 conv=notrunc,sparse status=none
dd if="$out/v1.ext4" of="$disk" bs=1M seek=9 conv=notrunc,sparse status=none
dd if="$out/v1.ext4" of="$disk" bs=1M seek=$((9 + slot_mib)) conv=notrunc,sparse status=none
echo "$slot_mib" >"$out/slot-mib"
step "done"
