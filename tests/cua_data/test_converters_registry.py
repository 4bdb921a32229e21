"""The built-in converters register through the same hook a third-party plugin would use."""

from __future__ import annotations

from cua_data import converters


def test_every_builtin_converter_is_registered_with_a_description() -> None:
    registry = converters()
    for name in (
        "aguvis", "opencua", "scalecua", "gui360", "screenspot", "osworld",
        "aitz", "android_control", "os_atlas", "mind2web", "weblinx",
    ):  # fmt: skip
        assert name in registry
        assert registry.plugin_of(name) == f"cua_data.converters.{name}"
        assert len(registry.meta(name)["description"]) > 20
