"""A local environment isolated from its host: a user of its own in mount and network namespaces of its own.

Where the host allows it (root on Linux, with ``unshare``) the local backend isolates each
environment; ``CUA_LOCAL_ISOLATE`` says otherwise: ``auto`` (the default: where the host allows it,
else the environment shares the host), ``1`` (always: an error naming why where the host cannot) or
``0`` (share the host). Isolated, it starts each env server as
``unshare --mount --net --ipc --propagation private -- python -c 'isolate.main' SOCKETS -- SERVER...``.
The launcher (``main``), still root and single-threaded (the namespace and its mounts must come
before zmq's threads), gives the environment:

- fresh tmpfs on ``/tmp``, ``/var/tmp`` and ``/home``, with ``/home/user`` its home: a task's
  ``rm -rf /home/user/x`` or ``/tmp`` files stay in the environment and vanish with it. The host's
  entries of ``/home`` at start (other users' homes), and those of ``/tmp`` the server's setup names
  (``named_in``: its environment's paths, its interpreter's), are bound back at their paths, with
  their own permissions; reset leaves them alone;
- a network namespace with loopback only: Xvfb's abstract sockets are per network namespace, so
  environments cannot collide on display numbers, and Chrome's debugging port is its own;
- an IPC namespace of its own: System V semaphores and shared memory live and die with the environment.
  Qt's single-application apps (Kate) key theirs with ``ftok`` on a file in ``/tmp``, and every
  environment's fresh ``/tmp`` has the same small inode numbers: on the host's namespace a killed app's
  objects, owned by an earlier environment's uid, refused later ones ("Unable to create block", 2 starts
  in 3 measured) and outlived every episode;
- a uid of its own (``UID_BASE`` + the server's pid), named ``user`` through a private
  ``/etc/passwd``: it cannot write the host's files (``/etc``), nor signal other users' processes
  (``pkill``); the env server, its desktop, bus, apps and the task's commands all run as that uid
  (a folder on the interpreter's path that others cannot enter, like root's 0700 home holding a
  pyenv, is covered by a tmpfs with only the interpreter's subfolder bound back);
- no root: root inside a mount namespace alone is the host's root, so sudo is not given and tasks
  that need it stay skipped (``Session.has_root``).

The server's socket folder (``SOCKETS``, on the host) is bound back into the private ``/tmp`` when
it lies there, and handed to the uid. ``/dev/shm`` stays the host's: a root client gives its
shared-memory frame segment to the uid that owns the server's socket, so frames skip the socket here too.

An environment that shares the host (``0``, or ``auto`` without root) still gets a ``/tmp`` of its
own: ``run_command`` and the session's file calls must see one filesystem, and tasks written for a
whole machine pass files through ``/tmp`` between the two (Cua Bench's ``run_command("cp … /tmp/…")``).
``wrap_private_tmp`` starts the server as ``unshare --mount --ipc`` (root) or ``unshare --user
--map-root-user --mount --ipc`` (anyone else, where the kernel allows user namespaces); the launcher
(``main_private_tmp``) covers ``/tmp`` with a tmpfs, binds the host's entries back as above (the
server's socket, the env roots, X's socket folder: displays still share the host's abstract socket
names; ``/var/tmp`` stays the host's), and serves as the host user again: without root, from a user
namespace nested in the first that maps only that user, so its programs own their files as before and
hold no capability. The environment keeps the host's network, uid and home folders.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shutil
import socket
import stat
import struct
import subprocess
import sys
from pathlib import Path

from cua_bench.backend_kit.desktop import PRIVATE_TMP, serve_as
from cua_bench.backends.local.apps import WHOLE_MACHINE
from cua_bench.backends.local.procs import env_base

__all__ = [
    "HOST_TMP",
    "ISOLATE",
    "ISOLATED",
    "PRIVATE_TMP",
    "UID_BASE",
    "env_uid",
    "isolating",
    "isolation_mode",
    "isolation_unavailable",
    "private_tmp_unavailable",
    "serve_as",
    "wrap",
    "wrap_private_tmp",
]

ISOLATE = "CUA_LOCAL_ISOLATE"  # auto (the default), 1 (always; an error where the host cannot) or 0 (share the host)
ISOLATED = "CUA_LOCAL_ISOLATED"  # set inside an isolated environment: the session knows it has no root
HOST_TMP = "CUA_LOCAL_HOST_TMP"  # the host's /tmp entries bound into it, /-separated: reset keeps them
UID_BASE = 1_900_000_000  # far above any account, subuid range or nobody (65534)
_MS_BIND, _MS_REC, _MS_NOSUID, _MS_NODEV = 4096, 16384, 2, 4
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1


def env_uid(server_pid: int) -> int:
    return UID_BASE + server_pid


def isolation_mode(given: str | None = None) -> str:
    """``given`` (the backend's option), else ``CUA_LOCAL_ISOLATE``: ``auto``, ``1`` or ``0``; anything else is
    an error saying what it takes."""
    mode = (given if given is not None else os.environ.get(ISOLATE, "")).strip().lower() or "auto"
    if mode not in ("auto", "1", "0"):
        raise ValueError(
            f"{ISOLATE}={mode!r} is not a setting: use auto (isolate each local environment where the host "
            "allows it: root on Linux; the default), 1 (always; an error where the host cannot) or 0 (share this host)"
        )
    return mode


def isolating(given: str | None = None) -> bool:
    """Whether local environments started now are isolated (``given``, else ``CUA_LOCAL_ISOLATE``, judged on
    this host)."""
    mode = isolation_mode(given)
    return mode == "1" or (mode == "auto" and isolation_unavailable() is None)


@functools.cache
def isolation_unavailable() -> str | None:
    """Why this host cannot isolate local environments, or None (asked once a process: it runs unshare)."""
    if not sys.platform.startswith("linux"):
        return "isolation needs Linux namespaces"
    if os.geteuid() != 0:
        return "isolation needs root (to make namespaces and switch to the environment's own user); run as root"
    if shutil.which("unshare") is None:
        return "isolation needs unshare: apt-get install util-linux"
    done = subprocess.run(["unshare", "--mount", "--net", "--ipc", "true"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        why = done.stderr.strip()
        return f"unshare --mount --net --ipc failed here ({why}); a container needs CAP_SYS_ADMIN for it"
    return None


def wrap(argv: list[str], sockets: Path) -> list[str]:
    """The command line that starts ``argv`` (``python -m cua_bench.server ...``) isolated; its socket
    goes in ``sockets``. The launcher runs the server in its own process (``serve_as``)."""
    if argv[1:3] != ["-m", "cua_bench.server"]:
        raise ValueError(f"not an env server's command line: {argv[:3]}")
    # -c rather than -m: the package imports this module first, which runpy warns about.
    code = "import sys; from cua_bench.backends.local.isolate import main; main(sys.argv[1:])"
    launcher = [argv[0], "-c", code, str(sockets), "--"]
    return ["unshare", "--mount", "--net", "--ipc", "--propagation", "private", "--", *launcher, *argv[3:]]


@functools.cache
def private_tmp_unavailable() -> str | None:
    """Why an environment sharing this host cannot have a /tmp of its own, or None (asked once a process)."""
    if not sys.platform.startswith("linux"):
        return "a private /tmp needs Linux namespaces"
    if shutil.which("unshare") is None:
        return "a private /tmp needs unshare: apt-get install util-linux"
    done = subprocess.run([*_private_tmp_unshare(), "true"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        hint = "" if os.geteuid() == 0 else "; allow user namespaces (sysctl kernel.unprivileged_userns_clone=1)"
        return f"{' '.join(_private_tmp_unshare())} failed here ({done.stderr.strip()}){hint}"
    return None


def _private_tmp_unshare() -> list[str]:
    user = [] if os.geteuid() == 0 else ["--user", "--map-root-user"]
    # --ipc: System V keys come from files in /tmp (ftok), which is the environment's own (see ``wrap``).
    return ["unshare", *user, "--mount", "--ipc", "--propagation", "private", "--"]


def wrap_private_tmp(argv: list[str]) -> list[str]:
    """The command line that starts the env server ``argv`` sharing this host but with a /tmp of its own."""
    if argv[1:3] != ["-m", "cua_bench.server"]:
        raise ValueError(f"not an env server's command line: {argv[:3]}")
    code = "import sys; from cua_bench.backends.local.isolate import main_private_tmp; main_private_tmp(sys.argv[1:])"
    # The env roots' folder as the host user names it (inside, before the launcher is that user again, it is uid 0).
    ids = [str(os.getuid()), str(os.getgid()), str(env_base())]
    return [*_private_tmp_unshare(), argv[0], "-c", code, *ids, "--", *argv[3:]]


def main_private_tmp(argv: list[str]) -> None:
    """The launcher ``wrap_private_tmp`` starts: ``[UID, GID, ENV_BASE, '--', SERVER OPTIONS...]``."""
    if len(argv) < 4 or argv[3] != "--":
        raise SystemExit(
            "usage: main_private_tmp([UID, GID, ENV_BASE, '--', SERVER OPTIONS...]): the local backend starts it"
        )
    # The env roots, the server's socket, and X's socket folder: displays made here keep their socket files
    # where the host's clients look.
    sockets = tuple(arg.removeprefix("ipc://") for arg in argv[4:] if arg.startswith("ipc://"))
    host_tmp = _cover("/tmp", "mode=1777", (), named_in("/tmp", (argv[2], "/tmp/.X11-unix/", *sockets)))
    os.environ.update({PRIVATE_TMP: "1", HOST_TMP: "/".join(host_tmp)})
    # The server's folders (its task cache too) in the env roots' folder, bound back: reset empties /tmp.
    os.environ["CUA_LOCAL_ROOT"] = argv[2]
    server = [sys.executable, "-m", "cua_bench.server", *argv[4:]]
    uid, gid = argv[0], argv[1]
    if os.getuid() != int(uid):
        # Root of the user namespace we made: the host user again, from a namespace nested in it that maps
        # only that user (what a process may map for itself; unshare(2) itself refuses a threaded
        # process, and importing numpy has started threads here). Its exec drops every capability.
        server = ["unshare", "--user", f"--map-user={uid}", f"--map-group={gid}", "--", *server]
    os.execvp(server[0], server)


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    encoded = [None if v is None else v.encode() for v in (source, target, fstype, data)]
    if libc.mount(encoded[0], encoded[1], encoded[2], ctypes.c_ulong(flags), encoded[3]) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"mount {source} on {target}: {os.strerror(error)}")


def _loopback_up() -> None:
    import fcntl  # here: the backend kit imports this module, and a Windows guest's env server imports the kit

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


def _account(uid: int, private: Path) -> None:
    """``user`` (and its group) in private copies of /etc/passwd and /etc/group bound over the host's."""
    for name, line in (("passwd", f"user:x:{uid}:{uid}:user:/home/user:/bin/bash\n"), ("group", f"user:x:{uid}:\n")):
        source = Path("/etc") / name
        lines = [entry for entry in source.read_text().splitlines(keepends=True) if not entry.startswith("user:")]
        copy = private / name
        copy.write_text("".join(lines) + line)
        copy.chmod(0o644)
        _mount(str(copy), str(source), None, _MS_BIND)


def _needed() -> dict[Path, Path]:
    """Folders the environment's user cannot reach that its Python needs (a pyenv under root's 0700
    home, say): each closed folder -> the subfolders on the way to what the interpreter reads."""
    found: dict[Path, Path] = {}
    wanted = {Path(os.path.realpath(p)) for p in (sys.executable, sys.prefix, sys.base_prefix, *sys.path) if p}
    for path in wanted:
        for ancestor in [*reversed(path.parents), path][:-1]:
            if not os.stat(ancestor).st_mode & stat.S_IXOTH:
                child = path.parents[len(path.parents) - len(ancestor.parts) - 1] if ancestor != path else path
                found[child] = ancestor
                break
    return found


def _open_closed_folders() -> None:
    """Cover each closed folder with a tmpfs holding only what the interpreter needs, bound back."""
    needed = _needed()
    handles = {child: os.open(child, os.O_PATH) for child in needed}
    for closed in set(needed.values()):
        _mount("tmpfs", str(closed), "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=755")
    for child, handle in handles.items():
        child.mkdir(exist_ok=True) if os.path.isdir(f"/proc/self/fd/{handle}") else child.touch()
        _mount(f"/proc/self/fd/{handle}", str(child), None, _MS_BIND)
        os.close(handle)


def named_in(folder: str, extra: tuple[str, ...] = ()) -> set[str]:
    """The entries of ``folder`` this process's setup names, which the server must still reach once a
    tmpfs covers it: on the way to ``extra``, to a path in any environment variable (the env roots'
    folder, a mirror, a skeleton, HOME, PYTHONPATH ...) or on the interpreter's path.

    Only these are bound back. A busy machine's /tmp holds thousands of entries (pip's, pytest's,
    other runs'): binding each back held one descriptor per entry, and past 1,024 the launcher died of
    "Too many open files" (79 failures of one CI run). Task folders no longer need it: they travel by
    content (``bundles``)."""
    paths = [*extra, sys.executable, sys.prefix, sys.base_prefix, *sys.path]
    for value in os.environ.values():
        paths += [part for part in value.split(os.pathsep) if part.startswith(folder + "/")]
    names = set()
    for path in paths:
        parts = Path(os.path.normpath(path)).parts if os.path.isabs(path) else ()
        depth = len(Path(folder).parts)
        if len(parts) > depth and Path(*parts[:depth]) == Path(folder):
            names.add(parts[depth])
    return names


def _cover(folder: str, mode: str, skip: tuple[str, ...], only: set[str] | None = None) -> list[str]:
    """A tmpfs over ``folder``, with the host's entries there now bound back (those in ``only``, or all;
    links made again) but those starting with one of ``skip``; returns the names brought back."""
    handles, links = {}, {}
    for entry in os.scandir(folder):
        if entry.name.startswith(skip) or (only is not None and entry.name not in only):
            continue
        # Others' entries come and go meanwhile (a busy /tmp): one gone since the listing is skipped.
        with contextlib.suppress(FileNotFoundError):
            if entry.is_symlink():
                links[entry.name] = os.readlink(entry.path)
            elif entry.is_dir() or entry.is_file():
                handles[entry.name] = (os.open(entry.path, os.O_PATH), entry.is_dir())
    _mount("tmpfs", folder, "tmpfs", _MS_NOSUID | _MS_NODEV, mode)
    bound = []
    for name, (handle, is_dir) in handles.items():
        target = Path(folder) / name
        target.mkdir() if is_dir else target.touch()
        try:  # recursive: in a user namespace, a folder with mounts inside may only be bound whole
            _mount(f"/proc/self/fd/{handle}", str(target), None, _MS_BIND | _MS_REC)
            bound.append(name)
        except FileNotFoundError:  # removed since it was opened (a pip or pytest temp folder): not brought back
            target.rmdir() if is_dir else target.unlink()
        finally:
            os.close(handle)
    for name, points_to in links.items():
        os.symlink(points_to, Path(folder) / name)
    return sorted([*bound, *links])


def enter(sockets: Path) -> tuple[int, list[str]]:
    """Set up the namespace (we are its root, single-threaded); the uid to become and the names of
    the host's /tmp entries bound back (reset must leave them alone)."""
    uid = env_uid(os.getpid())
    handle = os.open(sockets, os.O_PATH | os.O_DIRECTORY)  # reachable after /tmp is covered
    os.chown(sockets, uid, uid)
    # The runtime folder holding the socket is the host user's own (0700): only the socket's is bound.
    runtime = sockets.parts[2] if sockets.parts[:2] == ("/", "tmp") and len(sockets.parts) > 2 else ""
    skip = (".X", ".ICE-unix", runtime) if runtime else (".X", ".ICE-unix")
    host_tmp = _cover("/tmp", "mode=1777", skip, named_in("/tmp"))
    _mount("tmpfs", "/var/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=1777")
    _cover("/home", "mode=755", ("user",))
    private = Path("/home/.cua")  # root's: the account files; the env server's folders beside them
    private.mkdir(mode=0o755)
    _account(uid, private)
    for mine, mode in ((Path("/home/user"), 0o755), (private / "env", 0o700)):
        mine.mkdir(mode=mode)
        os.chown(mine, uid, uid)
    if not sockets.is_dir():  # it was under /tmp: bind the host's folder back at its path
        sockets.mkdir(parents=True)
        _mount(f"/proc/self/fd/{handle}", str(sockets), None, _MS_BIND)
    os.close(handle)
    _open_closed_folders()
    _loopback_up()
    return uid, [*host_tmp, runtime] if runtime else host_tmp


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[1] != "--":
        raise SystemExit("usage: main([SOCKETS, '--', SERVER OPTIONS...]): the local backend starts it (wrap)")
    uid, host_tmp = enter(Path(argv[0]))
    os.chdir("/home/user")
    for key in [key for key in os.environ if key.startswith(("XDG_", "DBUS_"))]:
        del os.environ[key]
    os.environ.update({"HOME": "/home/user", "USER": "user", "LOGNAME": "user", "TMPDIR": "/tmp"})
    os.environ.update({WHOLE_MACHINE: "1", ISOLATED: "1", "CUA_LOCAL_ROOT": "/home/.cua/env"})
    os.environ[HOST_TMP] = "/".join(host_tmp)
    serve_as(uid, uid, argv[2:])
