"""Making a running inference server serve newly saved weights (``cua_bench_rl_reload_weights``).

Two built-in answers, chosen by what the saved folder holds:

- a LoRA adapter (``adapter_config.json``): vLLM's runtime LoRA API, ``POST {root}/v1/load_lora_adapter``
  with ``{"lora_name", "lora_path", "load_inplace": true}`` (the server needs ``--enable-lora`` and
  ``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True``). The adapter keeps one name across versions, the name
  of the publish folder, so clients keep asking for the same ``model``; a vLLM too old for
  ``load_inplace`` answers "already loaded", and then the adapter is unloaded and loaded again.
- a full model (``config.json``): SGLang's ``POST {root}/update_weights_from_disk`` with
  ``{"model_path", "weight_version"}``, answered ``{"success": bool, "message": str}``.

A server without the route (404) is not this kind of server: the hook answers None and the next
plugin is asked. Any other refusal raises with the server's own words. ``OPENAI_API_KEY``, when
set, is sent as the bearer token, as the ``openai`` agent does.
"""

from __future__ import annotations

import json
import logging
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from cua_core import CuaError

__all__ = ["lora_name", "reload_weights", "server_root"]

log = logging.getLogger(__name__)

TIMEOUT_S = 600.0  # a full model read from disk by a large server takes minutes


def server_root(base_url: str) -> str:
    """``http://host:8000`` from ``http://host:8000/v1`` (the OpenAI base URL clients are given)."""
    root = base_url.rstrip("/")
    return root[: -len("/v1")] if root.endswith("/v1") else root


def lora_name(path: Path) -> str:
    """The name a server serves an adapter under: its publish folder's (``.../policy/v3`` -> ``policy``)."""
    return path.parent.name or path.name


def reload_weights(base_url: str, path: str, version: int) -> bool | None:
    folder = Path(path)
    if (folder / "adapter_config.json").is_file():
        return _vllm_lora(server_root(base_url), folder)
    if (folder / "config.json").is_file():
        return _sglang_from_disk(server_root(base_url), folder, version)
    log.info("%s holds neither a LoRA adapter nor a model; leaving it to other plugins", folder)
    return None


def _vllm_lora(root: str, folder: Path) -> bool | None:
    name = lora_name(folder)
    body = {"lora_name": name, "lora_path": str(folder), "load_inplace": True}
    status, text = _post(f"{root}/v1/load_lora_adapter", body)
    if status == 404:
        return None
    if status == 400 and "already" in text.lower():
        _post(f"{root}/v1/unload_lora_adapter", {"lora_name": name})
        status, text = _post(f"{root}/v1/load_lora_adapter", body)
    if status != 200:
        raise CuaError(f"{root}/v1/load_lora_adapter refused adapter {name!r} from {folder} ({status}): {text[:500]}")
    return True


def _sglang_from_disk(root: str, folder: Path, version: int) -> bool | None:
    status, text = _post(
        f"{root}/update_weights_from_disk", {"model_path": str(folder), "weight_version": str(version)}
    )
    if status == 404:
        return None
    answer = _json(text)
    if status != 200 or not answer.get("success", False):
        message = answer.get("message", text[:500])
        raise CuaError(f"{root}/update_weights_from_disk refused {folder} ({status}): {message}")
    return True


def _post(url: str, body: dict[str, Any]) -> tuple[int, str]:
    headers = {"Content-Type": "application/json"}
    key = os.environ.get("OPENAI_API_KEY", "")
    if key:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return int(response.status), response.read().decode(errors="replace")
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read().decode(errors="replace")
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise CuaError(f"cannot reach the inference server at {url}: {reason}; is it running?") from exc


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
