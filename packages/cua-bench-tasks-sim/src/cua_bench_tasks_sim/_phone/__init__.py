"""The phone taskset's apps (``apps``, registered on import) and what its families share (``kit``)."""

from __future__ import annotations

from cua_bench_tasks_sim._phone import apps as apps
