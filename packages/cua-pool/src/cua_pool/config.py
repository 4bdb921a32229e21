"""Small JSON files the CLI keeps: this computer's host settings and where its controller is."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from cua_core import AllowList, ClientSecurity, KeyPair, ServerSecurity, config_dir, load_or_create_keypair
from cua_pool.paths import host_home, local_controller_address, pool_home

__all__ = [
    "LOCAL",
    "allow_list",
    "client_config",
    "client_security",
    "host_config",
    "keypair",
    "resolve",
    "save_client_config",
    "save_host_config",
    "server_security",
]

LOCAL = "local"  # the controller of this computer's own pool, on an ipc socket


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except ValueError as exc:
        raise ValueError(f"{path} is not valid JSON ({exc}); fix or delete it") from exc
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.chmod(tmp, 0o600)
    tmp.replace(path)


def host_config() -> dict[str, Any] | None:
    return _read(host_home() / "host.json")


def save_host_config(data: dict[str, Any]) -> None:
    _write(host_home() / "host.json", data)


def client_config() -> dict[str, Any] | None:
    return _read(pool_home() / "client.json")


def save_client_config(data: dict[str, Any]) -> None:
    _write(pool_home() / "client.json", data)


def keypair() -> KeyPair:
    """This computer's pool key pair (hosts and clients use it to authenticate to a controller)."""
    return load_or_create_keypair("pool")


def allow_list() -> AllowList:
    """The keys a controller accepts: paired hosts and clients."""
    return AllowList(config_dir() / "keys" / "pool_authorized_keys")


def server_security() -> ServerSecurity:
    return ServerSecurity(keypair(), allow_list())


def resolve(address: str) -> str:
    """The controller's address: ``LOCAL`` is this machine's controller socket, anything else as given."""
    return local_controller_address() if address == LOCAL else address


def client_security(address: str, controller_key: str | None) -> ClientSecurity | None:
    """CURVE for every tcp controller (ipc is private to this user); refused early without its key."""
    if address.startswith(("ipc://", "inproc://")):
        return None
    if not controller_key:
        raise ValueError(
            f"controller {address} is reached over tcp, so it needs CURVE keys: pair first with "
            "`cua host pair --controller ADDR --controller-key KEY` (the key is what `cua host pair` prints "
            "on the controller)"
        )
    return ClientSecurity(keypair(), controller_key.encode())
