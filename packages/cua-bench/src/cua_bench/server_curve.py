"""The env server's CURVE flags: listening beyond this machine is refused without them (ARCHITECTURE: the bus)."""

from __future__ import annotations

import argparse

from zmq.utils import z85

from cua_core import AllowList, ServerSecurity, is_local, load_or_create_keypair

__all__ = ["curve_from_flags"]


class _CurveAllowList(AllowList):
    """This machine's allow-list plus the keys given with ``--allow``, which are never written to it
    (a pool job's client is allowed for that one server, not for everything on the host)."""

    def __init__(self, extra: list[bytes]) -> None:
        super().__init__()
        self.extra = dict.fromkeys(extra, "--allow")

    def keys(self) -> dict[bytes, str]:
        return {**super().keys(), **self.extra}


def curve_from_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> ServerSecurity | None:
    """CURVE from the flags; listening beyond this machine without it is refused (ARCHITECTURE: the bus)."""
    try:
        local = is_local(args.address)
    except ValueError as exc:
        parser.error(str(exc))
    if args.allow and not args.curve:
        parser.error("--allow names client keys for CURVE: add --curve")
    if not args.curve:
        if not local:
            parser.error(
                f"--address {args.address} is reachable from other computers: add --curve (ZeroMQ CURVE keys, "
                "see `cua-bus keys show`), or listen on tcp://127.0.0.1:PORT or ipc://PATH"
            )
        return None
    extra = []
    for key in args.allow:
        try:
            if len(key) != 40:
                raise ValueError(f"{len(key)} characters, not 40")
            z85.decode(key.encode())
        except (ValueError, KeyError) as exc:
            parser.error(f"--allow {key!r} is not a CURVE public key (40 Z85 characters): {exc}")
        extra.append(key.encode())
    return ServerSecurity(load_or_create_keypair(), _CurveAllowList(extra))
