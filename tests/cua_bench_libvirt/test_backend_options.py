"""The libvirt backends' options that reach beyond this host: ``listen`` (where machines' servers are reached) and
``allow`` (the one client key they answer), refused when wrong before anything starts."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("libvirt", reason="libvirt-python is not installed (scripts/setup.sh installs it)")

from cua_bench import BackendError
from cua_bench_libvirt import Domain, LibvirtBackend, LibvirtWindowsBackend

KEY = "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"  # a Z85 public key's shape: 40 characters


@pytest.mark.parametrize("backend", [LibvirtBackend, LibvirtWindowsBackend])
def test_listen_and_allow_are_checked_when_the_backend_is_made(backend: type[LibvirtBackend], tmp_path: Path) -> None:
    made = backend(uri="test:///default", images=str(tmp_path), listen="10.1.2.3", allow=KEY)
    assert (made.listen, made.allow) == ("10.1.2.3", KEY)
    with pytest.raises(BackendError, match=r"listen='::1' is not an IPv4 address of this host \(QEMU forwards IPv4"):
        backend(uri="test:///default", images=str(tmp_path), listen="::1")
    with pytest.raises(BackendError, match=r"allow='short' is not a CURVE public key \(40 Z85 characters"):
        backend(uri="test:///default", images=str(tmp_path), allow="short")
    with pytest.raises(BackendError, match="is not a CURVE public key"):
        backend(uri="test:///default", images=str(tmp_path), allow=KEY[:-1] + '"')  # '"' is not in Z85


def test_the_forwarded_port_binds_the_listen_address(tmp_path: Path) -> None:
    made = Domain("m", tmp_path / "d", tmp_path / "s", tmp_path / "k", tmp_path / "i", forwards={4000: 5555},
                  listen="10.1.2.3")  # fmt: skip
    assert "user,id=cua,hostfwd=tcp:10.1.2.3:4000-:5555" in made.xml()
