#!/bin/busybox sh
# The initramfs: load the modules the Debian kernel keeps out of its image (virtio, ext4), mount
# the slot GRUB named (root=) read-only, and hand over to its /sbin/canopy-init.
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/order); do insmod "/lib/modules/$m"; done
root=$(sed -n 's/.*root=\([^ ]*\).*/\1/p' /proc/cmdline)
for i in $(seq 50); do [ -b "$root" ] && break; sleep 0.1; done
if ! mount -t ext4 -o ro "$root" /newroot || [ ! -x /newroot/sbin/canopy-init ]; then
  echo "canopy-vm: cannot start $root; rebooting"
  sleep 1
  reboot -f
fi
mount --move /dev /newroot/dev
umount /proc /sys
exec switch_root /newroot /sbin/canopy-init
