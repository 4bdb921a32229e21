"""Lazily exported names: each package's __all__ resolves, and importing a package loads none of them."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

from cua_core import lazy_getattr

PACKAGES = ["cua_core", "cua_data", "cua_bench", "cua_bench_rl", "cua_pool"]


def test_a_lazy_name_is_imported_when_asked_for_and_another_is_an_attribute_error() -> None:
    getattr_ = lazy_getattr("pkg", {"dumps": "json"})
    assert getattr_("dumps") is importlib.import_module("json").dumps
    with pytest.raises(AttributeError, match="module 'pkg' has no attribute 'loads'"):
        getattr_("loads")


def test_a_submodule_entry_is_the_submodule_itself() -> None:
    getattr_ = lazy_getattr("json", {"decoder": "json.decoder"})
    assert getattr_("decoder") is importlib.import_module("json.decoder")


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_in_all_resolves(package: str) -> None:
    module = importlib.import_module(package)
    assert [name for name in module.__all__ if not hasattr(module, name)] == []


def test_importing_the_packages_loads_no_training_framework() -> None:
    # cua_bench_rl exports GRPO's maths (torch) and cua_data the SFT collation (transformers): on first use.
    code = f"import sys; import {', '.join(PACKAGES)}; print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.stdout.strip() == "[]", done.stdout + done.stderr
