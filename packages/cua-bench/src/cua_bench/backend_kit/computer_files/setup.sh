#!/bin/sh
# OSWorld's computer, inside an osworld image (run once at build time, as root, from /opt/cua/computer).
set -eu
here=/opt/cua/computer
# OSWorld's VM: user `user`, password `password` (its steps pipe it to `sudo -S`), sudo without one.
# (The docker images made from the default one, as the tests build this, have `user` already: uid 1000.)
id user >/dev/null 2>&1 || useradd --create-home --shell /bin/bash --uid 1000 user
echo 'user:password' | chpasswd
echo 'user ALL=(ALL:ALL) NOPASSWD: ALL' > /etc/sudoers.d/user
chmod 0440 /etc/sudoers.d/user
for folder in Desktop Documents Downloads Music Pictures Public Templates Videos; do
    mkdir -p "/home/user/$folder"
done
# VLC as OSWorld's VM has it: its web interface on (port 8080, password `password`), which OSWorld's
# VLC getters ask for the playing state, and its first-start privacy question already answered.
mkdir -p /home/user/.config/vlc
cat > /home/user/.config/vlc/vlcrc <<'VLCRC'
[qt]
qt-privacy-ask=0

[core]
extraintf=http
http-port=8080

[lua]
http-password=password
VLCRC
# Totem opens videos by default, as GNOME has it on OSWorld's VM: a task that asks for VLC as the default
# player then has work to do (with VLC the only player, doing nothing would pass it).
totem=/usr/share/applications/org.gnome.Totem.desktop
if [ -f "$totem" ]; then
    {
        echo '[Default Applications]'
        grep '^MimeType=' "$totem" | cut -d= -f2 | tr ';' '\n' | grep '^video/' | sed 's/$/=org.gnome.Totem.desktop/'
    } > /home/user/.config/mimeapps.list
fi
chown -R user:user /home/user
# LibreOffice's user profile, as on OSWorld's VM, where it had been started before: tasks read its
# settings (registrymodifications.xcu) even when the agent changed none, and no first-start tip or
# "running this version for the first time" bar takes the keys a task's setup sends.
if command -v soffice >/dev/null; then
    runuser -u user -- env HOME=/home/user soffice --headless --terminate_after_init
    version=$(soffice --version | awk '{print $2}' | cut -d. -f1,2)
    xcu=/home/user/.config/libreoffice/4/user/registrymodifications.xcu
    sed -i "s|</oor:items>|<item oor:path=\"/org.openoffice.Office.Common/Misc\"><prop oor:name=\"ShowTipOfTheDay\" \
oor:op=\"fuse\"><value>false</value></prop></item>\n<item oor:path=\"/org.openoffice.Setup/Product\"><prop \
oor:name=\"ooSetupLastVersion\" oor:op=\"fuse\"><value>$version</value></prop></item>\n</oor:items>|" "$xcu"
    chown user:user "$xcu"
fi
# The env server's folders (CUA_LOCAL_ROOT): off /tmp, which tasks use and reset empties.
mkdir -p /var/lib/cua && chown user:user /var/lib/cua
# pyautogui and its pure-Python dependencies into the system python3 (Xlib and Pillow come from Debian).
/opt/cua/venv/bin/pip install -q --no-index --no-deps --no-cache-dir --disable-pip-version-check \
    --target "$(python3 -c 'import site; print(site.getsitepackages()[0])')" "$here"/pywheels/*.whl
rm -rf "$here/pywheels"
# Chromium answers as google-chrome (OSWorld starts Chrome by that name with --remote-debugging-port).
install -m 0755 "$here/google-chrome" /usr/local/bin/google-chrome
ln -sf google-chrome /usr/local/bin/google-chrome-stable
# The clock's time zone is not UTC, as on OSWorld's VM, whose task "set my time zone to UTC+0" would otherwise
# pass by doing nothing (which zone the VM has is not known here: Hong Kong's, without summer time, stands
# in). timedatectl answers from /etc/localtime, as systemd's does: systemd is not init in a container.
# Every reset puts the zone back (reset-machine, run through sudo: CUA_LOCAL_RESET_HOOK in the backend kit's COMPUTER_ENV).
echo Asia/Hong_Kong > "$here/timezone"
test -f /usr/share/zoneinfo/Asia/Hong_Kong
sh "$here/reset-machine"
install -m 0755 "$here/timedatectl" /usr/local/bin/timedatectl
chmod 0755 "$here/reset-machine"
