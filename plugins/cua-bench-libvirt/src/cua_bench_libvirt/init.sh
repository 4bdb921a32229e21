#!/bin/sh
# PID 1 of a cua-bench guest (the kernel's init=): what systemd would do for one service, in a dozen
# lines, so a boot under TCG takes seconds. It mounts the kernel's file systems, puts the network card
# on QEMU's user network (the host forwards a loopback port to the server's), reads the settings the
# host wrote for this machine from the second disk, and runs the env server under tini (which reaps the
# apps the server leaves orphaned). When the server ends, the machine powers off: the host sees that.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 LC_ALL=C.UTF-8 HOME=/root
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sys /sys
mountpoint -q /dev || mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mountpoint -q /run || mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -o remount,rw /
hostname cua-guest
ip link set lo up
# The card's name depends on the slot udev saw it in (ens3, enp0s3): take the one that is not loopback.
nic=$(ls /sys/class/net | grep -vx lo | head -n 1)
ip link set "$nic" up && ip addr add 10.0.2.15/24 dev "$nic" && ip route add default via 10.0.2.2
mkdir -p /run/cua
if ! tar -xf /dev/vdb -C /run/cua 2>/dev/null || [ ! -f /run/cua/env ]; then
    echo "cua-guest: no settings on /dev/vdb; powering off"
    echo o > /proc/sysrq-trigger
fi
set -a
. /run/cua/env
set +a
# OSWorld's computer (the osworld image): the server, its apps and the task's commands run as its user, who
# owns its settings and key pair; everywhere else the server is root in its own machine.
as_user=""
if [ -n "${CUA_GUEST_USER:-}" ]; then
    chown -R "$CUA_GUEST_USER" /run/cua
    export HOME="/home/$CUA_GUEST_USER" USER="$CUA_GUEST_USER" LOGNAME="$CUA_GUEST_USER"
    cd "$HOME"
    as_user="runuser -u $CUA_GUEST_USER --"
fi
# The client keys the server answers, space-separated; a Z85 key holds * ? [ ]: no file name expansion.
set -f
allows=""
for key in $CUA_GUEST_ALLOW; do allows="$allows --allow=$key"; done
echo "cua-guest: starting the env server"
/usr/bin/tini -s -- $as_user /opt/cua/venv/bin/python -m cua_bench.server --backend local \
    --address "tcp://10.0.2.15:$CUA_GUEST_PORT" --curve $allows \
    --width "$CUA_GUEST_WIDTH" --height "$CUA_GUEST_HEIGHT"
echo "cua-guest: the env server exited with status $?; powering off"
sync
echo o > /proc/sysrq-trigger
sleep 60
