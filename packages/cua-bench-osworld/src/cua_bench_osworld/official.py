"""OSWorld's own metric functions, from an installed ``desktop-env``, without its heavy imports.

``desktop_env/evaluators/metrics/__init__.py`` imports every submodule, and ``docs.py`` imports
easyocr (torch and CUDA) for the one metric that reads text from an image. So we never run that
``__init__``: the packages above the metric files are stood in for by empty package modules (only
where the real ones are not imported yet), each submodule file is loaded by path, and a few
modules imported at the top of a file but used by one or two metrics (``easyocr``, ``formulas``,
``pdfplumber``, ``tldextract``, ``PyPDF2``) are replaced while loading by stand-ins that import
the real module on first use — or raise, naming what to install, if it is absent.

The exported names are read from that ``__init__.py`` with ``ast`` (not imported), so we offer
exactly OSWorld's 137 names, each from the submodule OSWorld takes it from. A submodule whose
dependencies are missing is reported, not fatal: its metrics are simply unavailable.

    pip install "./packages/cua-bench[osworld]" (from a clone of cua) && pip install --no-deps desktop-env==1.0.2
"""

from __future__ import annotations

import ast
import importlib
import importlib.metadata
import importlib.util
import logging
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["INSTALL_HINT", "LAZY_MODULES", "NOT_FUNCTIONS", "OUTSIDE_EXTRA", "OfficialMetrics", "official_metrics"]

log = logging.getLogger(__name__)

PACKAGE = "desktop_env.evaluators.metrics"
INSTALL_HINT = (
    'pip install "./packages/cua-bench[osworld]" (from a clone of cua) && pip install --no-deps desktop-env==1.0.2'
)

# Imported at the top of a metric file and used by one or two metrics each; easyocr would pull
# torch and CUDA in, formulas scipy (~140 MB). They load on first use instead.
LAZY_MODULES = ("easyocr", "formulas", "pdfplumber", "tldextract", "PyPDF2")
# Loaded first: the others import it.
_FIRST = ("utils",)

# OSWorld's exported names that are not functions we load: ``infeasible`` is defined in the
# ``__init__`` we never run, and scoring it is the evaluator's own rule (``evaluate.combine``).
NOT_FUNCTIONS = {"infeasible": "scored by the evaluator itself (OSWorld's metrics/__init__.py), not loaded"}
# Metrics whose dependency cua-bench[osworld] leaves out on purpose: metric -> (module, why).
OUTSIDE_EXTRA = {
    "compare_image_text": (
        "easyocr",
        "torch and CUDA (~7 GB), and a model downloaded at run time; not in cua-bench[osworld]: pip install easyocr",
    ),
}
# Import name -> the distribution to install, where they differ (for skip reasons).
DISTRIBUTIONS = {
    "fitz": "pymupdf",
    "odf": "odfpy",
    "skimage": "scikit-image",
    "acoustid": "pyacoustid",
    "cv2": "opencv-python-headless",
    "imagehash": "ImageHash",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "bs4": "beautifulsoup4",
    "yaml": "PyYAML",
    "PIL": "pillow",
    "sklearn": "scikit-learn",
}
EXTRA_HINT = 'pip install "./packages/cua-bench[osworld]" (from a clone of cua)'


def _offline_tldextract(module: Any) -> dict[str, Any]:
    # Its module-level ``extract`` downloads the Public Suffix List on first use; environments
    # never reach the network, so the metrics get one that reads the list tldextract ships.
    return {"extract": module.TLDExtract(cache_dir=None, suffix_list_urls=())}


# What the metric files get instead of some attributes of a deferred module (offline versions).
_OFFLINE: dict[str, Callable[[Any], dict[str, Any]]] = {"tldextract": _offline_tldextract}


class _Deferred(ModuleType):
    """Stands in for a module until an attribute is used; then it is the real module, or an error."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.__dict__["_real"] = None

    def __getattr__(self, attr: str) -> Any:
        real = self.__dict__["_real"]
        if real is None:
            try:
                real = importlib.import_module(self.__name__)
            except ImportError as exc:
                raise ImportError(
                    f"this OSWorld metric needs the module {self.__name__!r}, which is not installed ({exc})"
                ) from exc
            self.__dict__["_real"] = real
            offline = _OFFLINE.get(self.__name__)
            if offline is not None:
                self.__dict__.update(offline(real))
                if attr in self.__dict__:
                    return self.__dict__[attr]
        return getattr(real, attr)


@dataclass
class OfficialMetrics:
    """Which of OSWorld's metric functions loaded, and why the others did not."""

    version: str | None = None
    functions: dict[str, Callable[..., Any]] = field(default_factory=dict)
    # submodule -> why it could not be loaded (a missing dependency, usually)
    failed: dict[str, str] = field(default_factory=dict)
    # every exported name -> the submodule it comes from ("__init__" for infeasible)
    names: dict[str, str] = field(default_factory=dict)
    error: str | None = None  # why nothing loaded (desktop-env absent)

    @property
    def installed(self) -> bool:
        return self.version is not None

    def get(self, name: str) -> Callable[..., Any] | None:
        return self.functions.get(name)

    def unavailable(self) -> dict[str, str]:
        """name -> reason, for each exported metric that did not load."""
        out = {}
        for name, sub in self.names.items():
            if name not in self.functions:
                out[name] = NOT_FUNCTIONS.get(name) or self.failed.get(sub, self.error or "not loaded")
        return out

    def needs(self, name: str) -> str | None:
        """Why OSWorld's metric ``name`` cannot score here, naming what to install; None when it can.

        A skip has to say how to fix it: a metric whose module failed on a missing import names the
        package (``needs pymupdf: pip install ...``), not the ``No module named 'fitz'`` it raised.
        Deferred modules load on first use, so a metric that needs one absent here (easyocr) is
        caught here, before the run, instead of as an ImportError mid-evaluation.
        """
        if name in OUTSIDE_EXTRA:
            module, why = OUTSIDE_EXTRA[name]
            if importlib.util.find_spec(module) is None:
                return f"{name} needs {module} ({why})"
        if name in self.functions:
            return None
        if not self.installed:
            return f"{name} is OSWorld's own: {INSTALL_HINT}"
        sub = self.names.get(name)
        if sub is None:
            return f"{name} is not one of desktop-env {self.version}'s metrics"
        failure = self.failed.get(sub)
        if failure is None:
            return f"{name}: {self.unavailable().get(name, 'not loaded')}"
        missing = _missing_module(failure)
        if missing is not None:
            package = DISTRIBUTIONS.get(missing, missing)
            return f"{name} needs {package}: {EXTRA_HINT}"
        return f"{name}: desktop-env's {sub}.py did not load ({failure})"


def _missing_module(failure: str) -> str | None:
    """The top-level module of a ``No module named 'x.y'`` failure."""
    marker = "No module named '"
    if marker not in failure:
        return None
    return failure.split(marker, 1)[1].split("'", 1)[0].split(".", 1)[0]


_lock = threading.Lock()
_loaded: dict[str, OfficialMetrics] = {}


def official_metrics(*, reload: bool = False) -> OfficialMetrics:
    """Load once per process; later calls return the same result."""
    with _lock:
        if reload or "metrics" not in _loaded:
            _loaded["metrics"] = _load()
        return _loaded["metrics"]


def _exported(init: Path) -> dict[str, str]:
    """OSWorld's metric names -> submodule, from ``metrics/__init__.py`` (later imports win, as there)."""
    names: dict[str, str] = {}
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = node.module
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = "__init__"
    return names


def _load() -> OfficialMetrics:
    spec = importlib.util.find_spec("desktop_env")  # finds, does not import
    if spec is None or not spec.submodule_search_locations:
        return OfficialMetrics(error=f"desktop-env is not installed ({INSTALL_HINT})")
    try:
        version: str | None = importlib.metadata.version("desktop-env")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    root = Path(next(iter(spec.submodule_search_locations)))
    folder = root / "evaluators" / "metrics"
    init = folder / "__init__.py"
    if not init.is_file():
        return OfficialMetrics(version=version, error=f"{folder} has no __init__.py: an unknown desktop-env layout")
    result = OfficialMetrics(version=version, names=_exported(init))
    real = sys.modules.get(PACKAGE)
    if real is not None and getattr(real, "__file__", None):
        # Someone imported the real package already (easyocr and all): use it as it is.
        for name in result.names:
            fn = getattr(real, name, None)
            if callable(fn):
                result.functions[name] = fn
        return result

    _stand_in_packages(root)
    subs = sorted({s for s in result.names.values() if s != "__init__"})
    # A module imported already is used as it is, except one with an offline version: the files
    # must get that even when the real module came first (chrome.py imports tldextract itself).
    earlier = {name: sys.modules.get(name) for name in LAZY_MODULES}
    deferred = [name for name, module in earlier.items() if module is None or name in _OFFLINE]
    for name in deferred:
        sys.modules[name] = _Deferred(name)
    try:
        modules: dict[str, ModuleType] = {}
        for sub in [*_FIRST, *[s for s in subs if s not in _FIRST]]:
            try:
                modules[sub] = _load_file(sub, folder / f"{sub}.py")
            except Exception as exc:  # a missing dependency, usually
                result.failed[sub] = f"{type(exc).__name__}: {exc}"
                log.debug("OSWorld metrics %s not loaded: %s", sub, exc)
    finally:
        for name in deferred:
            # The files keep their stand-in; everyone else imports the real module as usual.
            if isinstance(sys.modules.get(name), _Deferred):
                module = earlier[name]
                if module is None:
                    del sys.modules[name]
                else:
                    sys.modules[name] = module
    for name, sub in result.names.items():
        if sub == "__init__":
            continue
        module = modules.get(sub)
        fn = getattr(module, name, None) if module is not None else None
        if callable(fn):
            result.functions[name] = fn
    return result


def _stand_in_packages(root: Path) -> None:
    """Empty package modules for desktop_env, .evaluators and .metrics, so no ``__init__`` runs."""
    for name, path in (
        ("desktop_env", root),
        ("desktop_env.evaluators", root / "evaluators"),
        (PACKAGE, root / "evaluators" / "metrics"),
    ):
        if name in sys.modules:
            continue
        package = ModuleType(name)
        package.__path__ = [str(path)]
        package.__package__ = name
        package.__spec__ = importlib.util.spec_from_loader(name, loader=None, is_package=True)
        if package.__spec__ is not None:
            package.__spec__.submodule_search_locations = [str(path)]
        sys.modules[name] = package
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, package)


def _load_file(sub: str, path: Path) -> ModuleType:
    name = f"{PACKAGE}.{sub}"
    existing = sys.modules.get(name)
    if existing is not None:
        return existing
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    setattr(sys.modules[PACKAGE], sub, module)
    return module
