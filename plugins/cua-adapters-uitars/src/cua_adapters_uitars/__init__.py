"""UI-TARS model adapters for cua-data: ``ui-tars`` (v1, relative [0, 1000]) and ``ui-tars-1.5`` (pixels)."""

from __future__ import annotations

from cua_adapters_uitars.uitars import CALL_USER_REASON, SCROLL_CLICKS, WAIT_SECONDS, UITars15Adapter, UITarsAdapter

__all__ = ["CALL_USER_REASON", "SCROLL_CLICKS", "WAIT_SECONDS", "UITars15Adapter", "UITarsAdapter"]
