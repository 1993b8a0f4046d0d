#!/usr/bin/env bash
# Build (once) the Debian 12 arm64 guest image `make field-check` boots: a stock Debian kernel and
# root filesystem, plus the kernel's own hardware simulators (gpio-sim, i2c-stub and the irq_sim
# library gpio-sim needs), which Debian's arm64 kernel does not ship, built out of tree from
# Debian's own kernel source for exactly the kernel the image boots.
#
# The result is cached outside the checkout, under a directory named by a hash of this script and
# the files it reads; it is reused while they are unchanged. Prints the image directory on stdout.
#
#   tools/field_rig/build_image.sh            # needs root (debootstrap, chroot, apt-get)
#   EDGE_AGENT_FIELD_RIG_CACHE=/tmp/x ...     # build from scratch somewhere else
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${EDGE_AGENT_FIELD_RIG_CACHE:-${HOME}/.cache/edge_agent/field-rig}"
mirror="${EDGE_AGENT_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
security="${EDGE_AGENT_DEBIAN_SECURITY:-http://deb.debian.org/debian-security}"
key="$(sha256sum <"$0" | cut -c1-16)"
out="$cache/image-$key"
log() { echo "[field-rig build $(date -u +%H:%M:%S)] $*" >&2; }

if [ -f "$out/done" ]; then
  echo "$out"
  exit 0
fi
[ "$(id -u)" = 0 ] || { echo "building the guest image needs root (debootstrap and chroot)" >&2; exit 2; }
# Stages leave stamps in one partial directory, so an interrupted build resumes where it stopped.
work="$cache/partial"
mkdir -p "$work"
exec 9>"$cache/build.lock"
flock 9
t0=$(date +%s)

# --- host tools -----------------------------------------------------------------------------------
need=()
for pair in qemu-system-aarch64:qemu-system-arm qemu-aarch64-static:qemu-user-static \
            update-binfmts:binfmt-support debootstrap:debootstrap qemu-img:qemu-utils \
            dtc:device-tree-compiler aarch64-linux-gnu-gcc-12:gcc-12-aarch64-linux-gnu \
            make:make mkfs.ext4:e2fsprogs flock:util-linux xz:xz-utils; do
  command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  log "installing host tools: ${need[*]}"
  apt-get -o DPkg::Lock::Timeout=900 update -qq
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends \
    "${need[@]}" >/dev/null
fi
# debootstrap's second stage runs arm64 binaries through binfmt_misc.
[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || true
update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true

root="$work/rootfs"
# Packages handed into the guest are staged here, relative to its root.
stage=var/tmp/field-rig
chroot_run() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive "$@"; }
mount_chroot() {
  mount -t proc proc "$root/proc"; mount -t sysfs sys "$root/sys"; mount --bind /dev "$root/dev"
  mount -t devpts devpts "$root/dev/pts" 2>/dev/null || true
}
umount_chroot() { for m in dev/pts dev sys proc; do umount -l "$root/$m" 2>/dev/null || true; done; }

# --- root filesystem (first and second stage) -----------------------------------------------------
if [ ! -f "$work/rootfs.done" ]; then
  log "debootstrap arm64 (first stage)"
  umount_chroot; rm -rf "$root"
  # What a Raspberry Pi OS Lite image has that the rig uses: systemd, udev, D-Bus, Python 3.11 with
  # venv and pip, Debian's spidev binding, i2c-tools and libgpiod's tools, sudo, make.
  debootstrap --arch=arm64 --foreign --variant=minbase \
    --include=systemd,systemd-sysv,udev,dbus,kmod,initramfs-tools,zstd,python3,python3-venv,python3-pip,python3-spidev,i2c-tools,gpiod,sudo,make,procps,ca-certificates,iproute2 \
    bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || { tail -30 "$work/debootstrap.log" >&2; exit 1; }
  cp /usr/bin/qemu-aarch64-static "$root/usr/bin/"
  log "debootstrap second stage (emulated)"
  chroot "$root" /debootstrap/debootstrap --second-stage >>"$work/debootstrap.log" 2>&1 \
    || { tail -30 "$work/debootstrap.log" >&2; exit 1; }
  touch "$work/rootfs.done"
fi

# --- kernel and a small initramfs -----------------------------------------------------------------
if [ ! -f "$work/kernel.done" ]; then
  log "kernel and initramfs"
  cat >"$root/etc/apt/sources.list" <<SRC
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
SRC
  # Only what the virt machine needs to mount its root: a full initramfs takes half an hour emulated.
  mkdir -p "$root/etc/initramfs-tools/conf.d"
  echo "MODULES=list" >"$root/etc/initramfs-tools/conf.d/field-rig.conf"
  printf '%s\n' virtio_pci virtio_blk virtio_mmio ext4 >"$root/etc/initramfs-tools/modules"
  trap umount_chroot EXIT
  mount_chroot
  chroot_run apt-get update -qq
  chroot_run apt-get install -y -qq --no-install-recommends linux-image-arm64 >"$work/kernel.log" 2>&1 \
    || { tail -30 "$work/kernel.log" >&2; exit 1; }
  kver="$(ls "$root/lib/modules" | sort -V | tail -1)"
  mkdir -p "$root/$stage"
  chroot_run sh -c "cd /$stage && apt-get download -qq linux-headers-$kver linux-headers-${kver%-arm64}-common"
  umount_chroot; trap - EXIT
  echo "$kver" >"$work/kver"
  touch "$work/kernel.done"
fi
kver="$(cat "$work/kver")"

# --- simulator modules, built out of tree against the image's own kernel headers --------------------
if [ ! -f "$work/modules.done" ]; then
  log "building gpio-sim, i2c-stub, irq_sim for $kver"
  srcpkg="linux-source-6.1"
  kbuild="linux-kbuild-6.1"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends \
    "$srcpkg" "$kbuild" bc flex bison libelf-dev >/dev/null 2>&1 || {
      apt-get -o DPkg::Lock::Timeout=900 update -qq
      DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends \
        "$srcpkg" "$kbuild" bc flex bison libelf-dev >/dev/null; }
  hdr="$work/headers"
  rm -rf "$hdr"; mkdir -p "$hdr"
  for deb in "$root/$stage"/linux-headers-*.deb; do dpkg-deb -x "$deb" "$hdr"; done
  # The arm64 headers link their build scripts to linux-kbuild's arm64 binaries; use the host's.
  kdir="$hdr/usr/src/linux-headers-$kver"
  find "$hdr" -type l -lname "*lib/$kbuild*" | while read -r l; do
    target="$(readlink "$l")"
    ln -sfn "/usr/lib/$kbuild/${target#*lib/$kbuild/}" "$l"
  done
  # The arch directory names itself and the common one by absolute path.
  sed -i "s#/usr/src/linux-headers-#$hdr/usr/src/linux-headers-#g" "$kdir/Makefile"
  ksrc="$work/ksrc"
  rm -rf "$ksrc"; mkdir -p "$ksrc"
  tar -C "$ksrc" --strip-components=1 -xaf /usr/src/linux-source-6.1.tar.xz \
    linux-source-6.1/drivers/gpio/gpio-sim.c linux-source-6.1/drivers/gpio/gpiolib.h \
    linux-source-6.1/drivers/i2c/i2c-stub.c linux-source-6.1/kernel/irq/irq_sim.c
  mod="$work/mod"
  rm -rf "$mod"; mkdir -p "$mod"
  cp "$ksrc/drivers/gpio/gpio-sim.c" "$ksrc/drivers/gpio/gpiolib.h" "$ksrc/drivers/i2c/i2c-stub.c" \
     "$ksrc/kernel/irq/irq_sim.c" "$mod/"
  # irq_sim is built into kernels that want it, so it calls irq_to_desc(), which is not exported to
  # modules; generic_handle_irq() does the same lookup and is. As a module it needs a licence tag.
  sed -i 's/handle_simple_irq(irq_to_desc(\([^)]*\)))/generic_handle_irq(\1)/' "$mod/irq_sim.c"
  grep -q 'generic_handle_irq' "$mod/irq_sim.c" || { echo "irq_sim.c: irq_to_desc call not found" >&2; exit 1; }
  printf '\n#include <linux/module.h>\nMODULE_LICENSE("GPL");\n' >>"$mod/irq_sim.c"
  cat >"$mod/Kbuild" <<'KB'
obj-m += irq_sim.o gpio-sim.o i2c-stub.o
KB
  make -s -C "$kdir" M="$mod" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC=aarch64-linux-gnu-gcc-12 \
    modules >"$work/modules.log" 2>&1 || { tail -40 "$work/modules.log" >&2; exit 1; }
  mkdir -p "$root/lib/modules/$kver/extra"
  cp "$mod"/*.ko "$root/lib/modules/$kver/extra/"
  chroot "$root" /sbin/depmod "$kver"
  touch "$work/modules.done"
fi

# --- Raspberry Pi OS's python3-lgpio, which Debian lacks -------------------------------------------
# Pi OS preinstalls python3-lgpio (gpiozero's pin factory for /dev/gpiochip*); Debian has no such
# package. Stand one in, packaged from lgpio's aarch64 wheel on the package index (the lg library is
# bundled in it), so a venv made with --system-site-packages sees it exactly as on a Pi.
if [ ! -f "$work/lgpio.done" ]; then
  log "python3-lgpio stand-in"
  lg="$work/lgpio"
  rm -rf "$lg"; mkdir -p "$lg/wheel" "$lg/pkg/DEBIAN" "$lg/pkg/usr/lib/python3/dist-packages"
  # The wheel is tagged manylinux_2_34: without that exact tag pip picks a placeholder release.
  python3 -m pip download -q --no-deps --only-binary :all: --python-version 3.11 \
    --platform manylinux_2_34_aarch64 -d "$lg/wheel" 'lgpio>=0.2'
  whl="$(ls "$lg"/wheel/lgpio-*.whl)"
  python3 -m zipfile -e "$whl" "$lg/pkg/usr/lib/python3/dist-packages/"
  ver="$(basename "$whl" | cut -d- -f2)"
  cat >"$lg/pkg/DEBIAN/control" <<CTL
Package: python3-lgpio
Version: $ver-0fieldrig
Architecture: arm64
Maintainer: edge-agent field rig <root@localhost>
Depends: python3 (>= 3.11), python3 (<< 3.12)
Section: python
Priority: optional
Description: lgpio Python binding (stand-in for Raspberry Pi OS's package)
 Built from the lgpio wheel on the package index for the edge-agent field rig.
CTL
  dpkg-deb --root-owner-group -b "$lg/pkg" "$lg/python3-lgpio.deb" >/dev/null
  mkdir -p "$root/$stage"
  cp "$lg/python3-lgpio.deb" "$root/$stage/"
  chroot "$root" /usr/bin/dpkg -i "/$stage/python3-lgpio.deb" >/dev/null
  rm -f "$root/$stage/python3-lgpio.deb"
  touch "$work/lgpio.done"
fi

# --- guest configuration --------------------------------------------------------------------------
if [ ! -f "$work/config.done" ]; then
  log "guest configuration"
  echo field-pi >"$root/etc/hostname"
  printf '127.0.0.1 localhost\n127.0.1.1 field-pi\n' >"$root/etc/hosts"
  printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$root/etc/fstab"
  # A Pi user account as Raspberry Pi OS creates it (sudo without password for the first user).
  chroot "$root" /usr/sbin/useradd -m -s /bin/bash -G sudo pi
  echo 'pi ALL=(ALL) NOPASSWD: ALL' >"$root/etc/sudoers.d/010_pi-nopasswd"
  chroot "$root" /usr/bin/passwd -d root >/dev/null
  # Modules a Pi has loaded once its interfaces are enabled in raspi-config.
  printf '%s\n' i2c-dev >"$root/etc/modules-load.d/field-rig.conf"
  # The rig's entry point: on a boot with field_rig=1 on the kernel command line, mount the host's
  # share (9p) once the system is up, run the suite it carries, then power off. Other boots ignore it.
  cat >"$root/etc/systemd/system/field-rig.service" <<'UNIT'
[Unit]
Description=Field rig: run the suite shared by the host, then power off
ConditionKernelCommandLine=field_rig=1
# Without default dependencies multi-user.target is not ordered after this unit (which would be a
# cycle with the line below); it is the last thing the boot starts.
DefaultDependencies=no
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/bin/sh -c 'mkdir -p /mnt/rig && mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 rig /mnt/rig && exec /mnt/rig/guest/entry.sh'
StandardOutput=journal+console
StandardError=journal+console
TimeoutStartSec=infinity
ExecStopPost=/bin/systemctl poweroff --no-block
[Install]
WantedBy=multi-user.target
UNIT
  ln -sf /etc/systemd/system/field-rig.service "$root/etc/systemd/system/multi-user.target.wants/field-rig.service"
  # Timers that would wake apt, man-db or fstrim in the middle of a measured run.
  for t in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer man-db.timer; do
    rm -f "$root/etc/systemd/system/timers.target.wants/$t"
  done
  rm -f "$root/usr/bin/qemu-aarch64-static"
  rm -rf "${root:?}/$stage"
  rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"* "$root/debootstrap"
  touch "$work/config.done"
fi

# --- disk image, kernel, initramfs --------------------------------------------------------------
log "disk image"
cp "$root/boot/vmlinuz-$kver" "$work/vmlinuz"
cp "$root/boot/initrd.img-$kver" "$work/initrd.img"
rm -f "$work/disk.raw" "$work/disk.qcow2"
mkfs.ext4 -q -L root -d "$root" "$work/disk.raw" 4G
qemu-img convert -O qcow2 "$work/disk.raw" "$work/disk.qcow2"
rm -f "$work/disk.raw"
echo "$kver" >"$work/kernel-release"
rm -rf "$work/headers" "$work/ksrc"
rm -rf "$root"
rm -f "$work"/*.done
rm -rf "$out"
mv "$work" "$out"
echo "built in $(( $(date +%s) - t0 )) s" >"$out/done"
log "done in $(( $(date +%s) - t0 )) s: $out"
echo "$out"
