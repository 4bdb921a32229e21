#!/usr/bin/env bash
# Debian packages the test suite drives for real (the `local` backend's X desktop and its apps, Docker).
# Installs only what is missing, with apt-get; safe to run again.
set -euo pipefail
# dbus and at-spi2-core: each environment's own session bus and the accessibility bus it activates.
# docker.io and debootstrap: the docker backend's engine (its tests start their own dockerd) and image base.
# gnome-screenshot: how Cua's computer-server (pyautogui) takes screenshots on Linux, for cua-bench-cua's tests.
# dconf-service, libglib2.0-bin, gsettings-desktop-schemas: gsettings kept by dconf in an isolated local
# environment (CUA_LOCAL_ISOLATE=1), as on OSWorld's computer.
# libatk-adaptor and libgail-common: GTK 2's atk-bridge and gail modules, without which PCManFM (GTK 2) shows
# nothing on the accessibility bus; pcmanfm-setting reads the window's state there (gail is only recommended,
# and an image made with --no-install-recommends lacked it: found by parity on the libvirt machine).
# libreoffice-{calc,writer,impress} and libreoffice-gtk3: the desktop taskset's office tasks (GTK dialogs, whose
# titles their oracles wait on; without -gtk3 LibreOffice draws its own).
# gedit, galculator, file-roller (with zip, unzip, xz-utils: the archivers it runs), evince, inkscape, gimp,
# thunderbird, vlc, qgis, blender, kate and libreoffice-draw: the desktop taskset's apps beyond those; ffmpeg makes
# the VLC tasks' media at setup.
packages=(xvfb openbox dbus at-spi2-core xterm xdotool xclip x11-xserver-utils mousepad gnumeric pcmanfm chromium
  fonts-dejavu-core docker.io debootstrap gnome-screenshot dconf-service libglib2.0-bin gsettings-desktop-schemas
  libatk-adaptor libgail-common libreoffice-calc libreoffice-writer libreoffice-impress libreoffice-gtk3
  gedit galculator file-roller zip unzip xz-utils evince inkscape gimp thunderbird vlc qgis blender kate libreoffice-draw
  ffmpeg)
# The libvirt plugin's hypervisor, apart from the desktop's list above (which OSWorld's support report reads):
# its tests start libvirtd and virtlogd themselves when none runs.
# e2fsprogs: mkfs.ext4 -d, which makes the libvirt image's disk; xorriso: the Windows provisioning kit's ISO.
hypervisor=(libvirt-daemon-system libvirt-daemon-driver-qemu qemu-system-x86 qemu-utils e2fsprogs xorriso)

# Debian's udev gives /dev/kvm to group kvm, which QEMU's user is in. Where no udev ran (a container), the
# device keeps the group the outer host gave it: libvirt then finds KVM usable as root but not as QEMU's user
# and probes QEMU again on every call (32 s per domain defined, measured; 0.03 s once the group is kvm).
# (The libvirt image build once changed it too, through the host's /dev bound into its chroot: no longer.)
kvm_group() {
  if [ -e /dev/kvm ] && [ "$(id -u)" -eq 0 ] && getent group kvm >/dev/null && [ "$(stat -c %G /dev/kvm)" != kvm ]; then
    chgrp kvm /dev/kvm && chmod g+rw /dev/kvm
  fi
}
trap kvm_group EXIT
missing=()
for package in "${packages[@]}" "${hypervisor[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null; then
  echo "system-deps: missing ${missing[*]}; install them with your package manager" >&2
  exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "system-deps: apt-get install ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
