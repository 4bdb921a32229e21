"""Converters from the native formats of GUI-agent datasets to LiteSample, one module per format."""

BUILTIN = (
    "cua_data.converters.aguvis",
    "cua_data.converters.opencua",
    "cua_data.converters.scalecua",
    "cua_data.converters.gui360",
    "cua_data.converters.screenspot",
    "cua_data.converters.osworld",
    "cua_data.converters.aitz",
    "cua_data.converters.android_control",
    "cua_data.converters.os_atlas",
    "cua_data.converters.mind2web",
    "cua_data.converters.weblinx",
)
