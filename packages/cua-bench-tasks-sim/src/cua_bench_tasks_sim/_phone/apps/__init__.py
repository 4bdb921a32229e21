"""The phone's apps: one module each, holding the app (a ``PhoneApp`` marked ``@register_phone_app``)
and ``sample``, the seeded data a family gives it. Importing this package registers them all, so a
family's phone can put any of them on its launcher. (``notes`` is the phone surface's own app, in
``cua_bench.sim.phone``; its module here holds only its sample.)
"""

from __future__ import annotations

import importlib
import pkgutil

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_module.name}")
