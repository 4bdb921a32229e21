"""Lume's HTTP API (``lume serve``, port 7777 by default): the calls a machine's life takes.

Written from Lume's HTTP API reference (docs/content/docs/lume/reference/http-api.mdx in trycua/cua)
and, where it names no response body, from the handlers it is generated from (libs/lume/src/Server):
``POST /lume/pull`` answers 200 once the image is a local VM, ``POST /lume/vms/clone`` 200,
``PATCH /lume/vms/{name}`` 200, ``POST /lume/vms/{name}/run`` 202 at once (the VM boots in Lume's
process), ``GET /lume/vms/{name}`` 200 with the VM's details (``status``, ``ipAddress``),
``POST /lume/vms/{name}/stop`` 200 once stopped, ``DELETE /lume/vms/{name}`` 200; every failure is a
400 with ``{"message": ...}``, which the error here quotes. The standard library's HTTP client is
enough for this: no dependency on the host.
"""

from __future__ import annotations

import json
import time
import urllib.parse
from typing import Any

from cua_bench import BackendError

__all__ = ["LUME_DEFAULT_URL", "LumeClient"]

LUME_DEFAULT_URL = "http://127.0.0.1:7777"
POLL = 2.0  # seconds between status reads while a VM boots
PULL_TIMEOUT = 3600.0  # a pull downloads a whole macOS disk (20-25 GB), and Lume answers when it is done


class LumeClient:
    """The VMs of one Lume server. ``poll`` is the interval between status reads while a VM boots."""

    name = "lume"
    default_image = "macos-sequoia-vanilla:latest"  # Lume's prebuilt image: SSH on, auto-login, user lume
    default_user = default_password = "lume"

    def __init__(self, url: str = LUME_DEFAULT_URL, *, timeout: float = 60.0, poll: float | None = None) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout
        self.poll = POLL if poll is None else poll

    def _call(self, method: str, path: str, body: Any = None, timeout: float | None = None) -> tuple[int, Any]:
        """(status, the JSON body or None); an unreachable server is a BackendError saying where it looked."""
        # urllib.request (with http.client) is imported here: cua-bench loads this plugin in every env server,
        # which never calls Lume.
        import urllib.error
        import urllib.request

        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        except (urllib.error.URLError, OSError) as exc:
            raise BackendError(f"Lume's API at {self.url} did not answer {method} {path} ({exc}): is `lume serve` "
                               "running? (Lume's installer starts it as a background service)") from exc  # fmt: skip
        try:
            return status, json.loads(raw) if raw.strip() else None
        except ValueError:
            return status, raw.decode(errors="replace")

    def _ok(self, method: str, path: str, body: Any = None, *, expect: int = 200, timeout: float | None = None) -> Any:
        status, answer = self._call(method, path, body, timeout)
        if status != expect:
            said = answer.get("message") if isinstance(answer, dict) else answer
            raise BackendError(f"Lume refused {method} {path} ({status}): {said}")
        return answer

    def answers(self, timeout: float = 2.0) -> bool:
        """Whether Lume's API answers at ``url`` now (the cheap check ``provider=auto`` makes first)."""
        try:
            return self._call("GET", "/lume/vms", timeout=timeout)[0] == 200
        except BackendError:
            return False

    def details(self, vm: str) -> dict[str, Any] | None:
        """``GET /lume/vms/{name}``; None when Lume says 400 (no such VM, as its reference documents)."""
        status, answer = self._call("GET", f"/lume/vms/{urllib.parse.quote(vm)}")
        if status == 400:
            return None
        if status != 200 or not isinstance(answer, dict):
            raise BackendError(f"Lume answered GET /lume/vms/{vm} with {status}: {answer}")
        return answer

    def names(self) -> list[str]:
        listed = self._ok("GET", "/lume/vms")
        return [str(vm["name"]) for vm in listed or [] if isinstance(vm, dict) and "name" in vm]

    def exists(self, vm: str) -> bool:
        return self.details(vm) is not None

    def create(self, image: str, vm: str) -> None:
        """The golden VM from a registry image (``POST /lume/pull``, which returns once pulled)."""
        self._ok("POST", "/lume/pull", {"image": image, "name": vm}, timeout=PULL_TIMEOUT)

    def clone(self, source: str, vm: str) -> None:
        self._ok("POST", "/lume/vms/clone", {"name": source, "newName": vm})

    def configure(self, vm: str, cpus: int, memory_mib: int, width: int, height: int) -> None:
        """CPUs, memory (Lume reads ``8192MB``) and the display, before the VM runs."""
        body = {"cpu": cpus, "memory": f"{memory_mib}MB", "display": f"{width}x{height}"}
        self._ok("PATCH", f"/lume/vms/{urllib.parse.quote(vm)}", body)

    def start(self, vm: str) -> None:
        """``POST /lume/vms/{name}/run`` without a VNC window; Lume answers 202 and boots it in its process."""
        self._ok("POST", f"/lume/vms/{urllib.parse.quote(vm)}/run", {"noDisplay": True}, expect=202)

    def wait_ip(self, vm: str, timeout: float) -> str:
        """The VM's address once Lume reports it running with one; BackendError after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        seen: dict[str, Any] | None = None
        while True:
            seen = self.details(vm)
            if seen is not None and seen.get("status") == "running" and seen.get("ipAddress"):
                return str(seen["ipAddress"])
            if time.monotonic() > deadline:
                state = "gone" if seen is None else f"{seen.get('status')!r}, address {seen.get('ipAddress')!r}"
                raise BackendError(f"Lume's VM {vm} has no address after {timeout:g} s (it is {state})")
            time.sleep(self.poll)

    def running(self, vm: str) -> bool:
        seen = self.details(vm)
        return seen is not None and seen.get("status") == "running"

    def stop(self, vm: str) -> None:
        self._ok("POST", f"/lume/vms/{urllib.parse.quote(vm)}/stop", {})

    def delete(self, vm: str) -> None:
        self._ok("DELETE", f"/lume/vms/{urllib.parse.quote(vm)}")
