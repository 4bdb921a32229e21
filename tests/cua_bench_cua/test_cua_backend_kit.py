"""The cua backend's declared capabilities and options, without a computer-server."""

from __future__ import annotations

import pytest

from cua_bench.backend_kit import Capabilities
from cua_bench_cua.backend import CuaBackend
from cua_core.options import OptionError


def test_cua_declares_a_linux_computer_without_promising_root_or_a_browser() -> None:
    declared = CuaBackend.capabilities
    assert isinstance(declared, Capabilities)
    assert (declared.os, declared.shell, declared.root, declared.browser) == ("linux", True, False, False)


def test_the_url_option_reaches_provisioning_and_the_env_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUA_COMPUTER_SERVER_URL", "http://127.0.0.1:8000")
    backend = CuaBackend(url="http://127.0.0.1:9/", typing="type_text")
    assert backend.option("url") == "http://127.0.0.1:9/"
    env = backend.server_env()
    assert env is not None
    assert env["CUA_COMPUTER_SERVER_URL"] == "http://127.0.0.1:9/" and env["CUA_COMPUTER_SERVER_TYPING"] == "type_text"
    with pytest.raises(Exception, match=r"no Cua computer-server answers at http://127\.0\.0\.1:9 "):
        backend.provision()  # nothing listens on the discard port: the option, not the variable, was asked
    with pytest.raises(OptionError, match=r"typing must be one of keys, type_text"):
        CuaBackend(typing="paste")
