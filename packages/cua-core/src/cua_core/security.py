"""CURVE keys (ZeroMQ's own authentication and encryption) and the allow-list of client keys.

Keys live under ``$CUA_CONFIG_DIR`` (default ``$XDG_CONFIG_HOME/cua`` or ``~/.config/cua``) in
``keys/``, in ZeroMQ's certificate format, secret files readable by their owner only. Servers accept
a client only if its public key is in ``keys/authorized_keys``; every refusal is logged.
"""

from __future__ import annotations

import logging
import os
import shutil
import stat
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zmq
import zmq.auth
import zmq.utils.z85
from zmq.auth.thread import ThreadAuthenticator

from cua_core.errors import SecurityError

__all__ = [
    "AllowList",
    "ClientSecurity",
    "KeyPair",
    "ServerSecurity",
    "check_public_key",
    "config_dir",
    "load_or_create_keypair",
]

log = logging.getLogger(__name__)

_ZAP_DOMAIN = "cua"


def config_dir() -> Path:
    explicit = os.environ.get("CUA_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cua"


def _keys_dir(directory: Path | None) -> Path:
    path = directory if directory is not None else config_dir() / "keys"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class KeyPair:
    """A CURVE key pair, both halves Z85-encoded (40 ASCII bytes)."""

    public: bytes
    secret: bytes = field(repr=False)


def load_or_create_keypair(name: str = "default", directory: Path | None = None) -> KeyPair:
    """Load ``<name>.key_secret`` or create it (mode 0600) with its public half ``<name>.key``."""
    if not name or "/" in name or name.startswith("."):
        raise ValueError(f"key name {name!r} must be a plain file name such as 'default'")
    folder = _keys_dir(directory)
    secret_file = folder / f"{name}.key_secret"
    if not secret_file.exists():
        _create_keypair(folder, name)
    mode = stat.S_IMODE(secret_file.stat().st_mode)
    # Windows has no such mode bits (every file reads 0o666 or 0o444): its ACLs, the profile's, guard the file.
    if mode & 0o077 and os.name != "nt":
        raise SecurityError(
            f"secret key {secret_file} is readable by others (mode {mode:o}); run `chmod 600 {secret_file}`"
        )
    try:
        public, secret = zmq.auth.load_certificate(str(secret_file))
    except (OSError, ValueError) as exc:
        raise SecurityError(f"cannot read CURVE key {secret_file}: {exc}") from exc
    if secret is None:
        raise SecurityError(f"{secret_file} holds no secret key; delete it to create a new pair")
    return KeyPair(public, secret)


def _create_keypair(folder: Path, name: str) -> None:
    """Make the pair in a private scratch folder and link the secret into place only if none is there,
    so callers racing to create it (threads, processes) all end up with the one pair that won, and
    none ever sees a half-written or not-yet-private secret."""
    scratch = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=folder))
    try:
        public_tmp, secret_tmp = (Path(p) for p in zmq.auth.create_certificates(str(scratch), name))
        secret_tmp.chmod(0o600)
        try:
            os.link(secret_tmp, folder / f"{name}.key_secret")
        except FileExistsError:
            return  # another caller created it first: theirs is the pair
        os.replace(public_tmp, folder / f"{name}.key")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def check_public_key(key: bytes | str) -> bytes:
    """``key`` as bytes when it is a CURVE public key (40 Z85 characters that decode); SecurityError otherwise."""
    raw = key.encode() if isinstance(key, str) else key
    if len(raw) != 40:
        raise SecurityError(f"a CURVE public key is 40 Z85 characters, got {len(raw)}: {raw!r}")
    try:
        zmq.utils.z85.decode(raw)
    except Exception as exc:
        raise SecurityError(f"{raw!r} is not a Z85-encoded CURVE key: {exc}") from exc
    return raw


class AllowList:
    """The public keys a server accepts: one per line, optionally followed by a comment."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else _keys_dir(None) / "authorized_keys"
        self._lock = threading.Lock()

    def keys(self) -> dict[bytes, str]:
        if not self.path.exists():
            return {}
        found: dict[bytes, str] = {}
        for lineno, line in enumerate(self.path.read_text().splitlines(), 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            key, _, comment = text.partition(" ")
            try:
                found[check_public_key(key)] = comment.strip()
            except SecurityError as exc:
                raise SecurityError(f"{self.path}:{lineno}: {exc}") from exc
        return found

    def add(self, key: bytes | str, comment: str = "") -> None:
        raw = check_public_key(key)
        with self._lock:
            if raw in self.keys():
                return
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with self.path.open("a") as out:
                out.write(f"{raw.decode()} {comment}".rstrip() + "\n")
            self.path.chmod(0o600)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, bytes) and key in self.keys()


@dataclass(frozen=True)
class ServerSecurity:
    """What a listening socket needs: its key pair and the clients it accepts."""

    keypair: KeyPair
    allow: AllowList

    def apply(self, sock: zmq.Socket[Any]) -> None:
        sock.curve_secretkey = self.keypair.secret
        sock.curve_publickey = self.keypair.public
        sock.curve_server = True
        sock.zap_domain = _ZAP_DOMAIN.encode()

    def start_authenticator(self, context: zmq.Context[Any], who: str) -> ThreadAuthenticator:
        """Start the ZAP handler that checks every connecting key against the allow-list.

        One per context (ZeroMQ binds a single ZAP endpoint per context), so each secured server
        owns its context.
        """
        auth = ThreadAuthenticator(context, log=logging.getLogger(f"{__name__}.zap"))
        auth.start()
        auth.configure_curve_callback(_ZAP_DOMAIN, credentials_provider=_Checker(self.allow, who))
        return auth


class _Checker:
    """ZAP credentials provider: re-reads the allow-list so `cua-bus keys allow` applies at once."""

    def __init__(self, allow: AllowList, who: str) -> None:
        self.allow = allow
        self.who = who

    def callback(self, domain: str, key: bytes) -> bool:
        z85 = zmq.utils.z85.encode(key) if len(key) == 32 else key
        if z85 in self.allow:
            return True
        log.warning(
            "%s refused a client with CURVE key %s: not in %s (add it with `cua-bus keys allow`)",
            self.who,
            z85.decode(errors="replace"),
            self.allow.path,
        )
        return False


@dataclass(frozen=True)
class ClientSecurity:
    """What a connecting socket needs: its own key pair and the server's public key."""

    keypair: KeyPair
    server_public: bytes

    def __post_init__(self) -> None:
        # A key read from a ready line or a config file arrives as text; the socket needs bytes.
        object.__setattr__(self, "server_public", check_public_key(self.server_public))

    def apply(self, sock: zmq.Socket[Any]) -> None:
        sock.curve_secretkey = self.keypair.secret
        sock.curve_publickey = self.keypair.public
        sock.curve_serverkey = self.server_public
