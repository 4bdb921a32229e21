"""The one error a backend raises: it lives with the kit so that every kit helper can raise it, and the
backend contract (``cua_bench.Backend``) builds on the kit rather than the other way round."""

from __future__ import annotations

from cua_core import CuaError

__all__ = ["BackendError"]


class BackendError(CuaError):
    """A computer that could not be provisioned, reached or torn down; the message says the fix."""
