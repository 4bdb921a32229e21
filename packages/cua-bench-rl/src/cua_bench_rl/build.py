"""What a training run is made of, checked and built from its settings: the trainer's options typed by
its ``Config``, the backend and tasks looked up, the policy's options typed by its constructor, then the
policy and the trainer.

``check_settings`` runs before anything slow or lasting, cheapest first, and imports no torch until the
policy's options need its class: a misspelt option, backend or task is refused in well under a second,
before ``train`` writes a run folder.
"""

from __future__ import annotations

import ast
import dataclasses
import dis
import importlib
import importlib.util
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from cua_bench_rl.config import TrainConfig
from cua_bench_rl.policy import Policy
from cua_bench_rl.trainer import Trainer, TrainerConfig
from cua_core import CuaError, typed_options

__all__ = ["build_policy", "build_trainer", "check_settings"]


def _named(spec: str, registry: Callable[[], Any], *, kind: str, base: type) -> Callable[..., Any]:
    """What ``spec`` names: a registered ``kind``, or ``FILE.py:Class`` / ``module:Class``."""
    from cua_bench import load_named

    if ":" in spec:
        return load_named(spec, flag=f"--{kind}", base=base)
    found = registry()
    if spec not in found:
        raise CuaError(f"no {kind} {spec!r}; installed: {', '.join(sorted(found)) or 'none'}")
    return found[spec]  # type: ignore[no-any-return]


def check_settings(config: TrainConfig) -> TrainConfig:
    """Every setting a user can get wrong, checked before anything slow or lasting, cheapest first: the
    trainer and its options (typed by the trainer's ``Config``: a trainer's class imports no torch), the
    backend, the tasks, then the policy's options (typed by its constructor: importing it is the first
    heavy import, torch). Returns ``config`` with its options typed, as the run records them (``lr=3e-4``
    given as text is the number; the backend's options by what it declares)."""
    trainer_options = _trainer_options(config.trainer, _trainer_class(config), config.trainer_options)
    config.check_backend()
    backend_options = config.typed_backend_options()
    for split, count in ((config.train_split, config.train_variants), (config.eval_split, config.eval_episodes)):
        config.episodes(split, count)  # a missing task or split, named
    factory = _named(config.policy, _policies, kind="policy", base=Policy)
    return dataclasses.replace(
        config,
        trainer_options=trainer_options,
        backend_options=backend_options,
        policy_options=_policy_options(factory, config),
    )


def _trainer_class(config: TrainConfig) -> type[Trainer]:
    from cua_bench_rl.registry import trainers

    found: type[Trainer] = _named(config.trainer, trainers, kind="trainer", base=Trainer)  # type: ignore[assignment]
    return found


def _trainer_options(name: str, trainer_class: type[Trainer], given: dict[str, Any]) -> dict[str, Any]:
    """``given`` (``--trainer-option``s, a config file's ``trainer_options``) typed by the trainer's ``Config``
    and checked by it (its choices and ranges): only the keys given, as the run records them."""
    config_class = getattr(trainer_class, "Config", None)
    if not (isinstance(config_class, type) and issubclass(config_class, TrainerConfig)):
        raise CuaError(f"trainer {name!r}: its Config must be a TrainerConfig subclass, not {config_class!r}")
    try:
        options = typed_options(config_class, given, what="trainer option", flag="--trainer-option", complete=False)
        config_class.from_dict(options)
    except (TypeError, ValueError, CuaError) as exc:
        raise CuaError(f"trainer options: {exc}") from exc
    return options


def _policies() -> Any:
    from cua_bench_rl.registry import policies

    return policies()


def _policy_options(factory: Callable[..., Any], config: TrainConfig) -> dict[str, Any]:
    label = f"policy {config.policy!r}"
    read = _read_built_by(factory)
    if read is not None:  # names and plain types first, from the source: the class's module imports torch
        typed_options(read, config.policy_options, label=label, flag="--policy-option", complete=False)
    return typed_options(_built_by(factory), config.policy_options, label=label, flag="--policy-option")


def _imported_class(factory: Callable[..., Any]) -> tuple[str, str] | None:
    """``(module, name)`` of the class a lazy factory (``**options`` only) imports and builds, or None."""
    if not inspect.isfunction(factory):
        return None
    params = inspect.signature(factory).parameters.values()
    if not params or any(p.kind is not p.VAR_KEYWORD for p in params):
        return None
    module = None
    for instruction in dis.get_instructions(factory):
        if instruction.opname == "IMPORT_NAME":
            module = str(instruction.argval)
        elif instruction.opname == "IMPORT_FROM" and module is not None:
            return module, str(instruction.argval)
    return None


def _read_built_by(factory: Callable[..., Any]) -> Callable[..., Any] | None:
    """A stand-in with the parameters of the constructor a lazy factory calls, read from its module's
    source without running it (a torch import costs seconds: a misspelt option is refused before it)."""
    found = _imported_class(factory)
    if found is None:
        return None
    try:
        spec = importlib.util.find_spec(found[0])
        origin = spec.origin if spec is not None else None
        tree = ast.parse(Path(origin).read_text()) if origin and origin.endswith(".py") else None
    except (ImportError, ValueError, OSError, SyntaxError):
        return None
    init = next(
        (
            item
            for node in (tree.body if tree is not None else [])
            if isinstance(node, ast.ClassDef) and node.name == found[1]
            for item in node.body
            if isinstance(item, ast.FunctionDef) and item.name == "__init__"
        ),
        None,
    )
    if init is None or init.args.vararg or init.args.kwarg or init.args.posonlyargs:
        return None
    positional = init.args.args[1:]  # after self
    defaults = [None] * (len(positional) - len(init.args.defaults)) + list(init.args.defaults)
    params = [
        inspect.Parameter(
            arg.arg,
            kind,
            default=inspect.Parameter.empty if default is None else ...,
            annotation=ast.unparse(arg.annotation) if arg.annotation is not None else inspect.Parameter.empty,
        )
        for kind, pairs in (
            (inspect.Parameter.POSITIONAL_OR_KEYWORD, zip(positional, defaults, strict=True)),
            (inspect.Parameter.KEYWORD_ONLY, zip(init.args.kwonlyargs, init.args.kw_defaults, strict=True)),
        )
        for arg, default in pairs
    ]

    def stand_in(**options: Any) -> None:
        """Never called: its signature is the constructor's, for ``typed_options``."""

    stand_in.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    return stand_in


def _built_by(factory: Callable[..., Any]) -> Callable[..., Any]:
    """What a policy's options are checked against: its factory, or, for a factory that takes only
    ``**options`` and hands them to a class it imports when called (a plugin's lazy factory, which keeps
    torch out of ``cua-bench-rl list``: ``from pkg.mod import C; return C(**options)``), that class, found
    in the factory's code: so a wrong option is refused by name and type before anything is built."""
    found = _imported_class(factory)
    if found is None:
        return factory
    try:
        built = getattr(importlib.import_module(found[0]), found[1], None)
    except ImportError:
        return factory  # calling it fails the same way, and says so
    return built if isinstance(built, type) and issubclass(built, Policy) else factory


def build_policy(config: TrainConfig) -> Policy:
    """The policy ``config.policy`` names, built with its options (checked against its constructor)."""
    factory = _named(config.policy, _policies, kind="policy", base=Policy)
    policy = factory(**_policy_options(factory, config))
    if not isinstance(policy, Policy):
        raise CuaError(f"policy {config.policy!r} built a {type(policy).__name__}, not a cua_bench_rl Policy")
    return policy


def build_trainer(config: TrainConfig, policy: Policy) -> Trainer:
    """The trainer ``config.trainer`` names (registered, or ``FILE.py:Class``) on ``policy``, with its
    ``Config`` made from ``config.trainer_options``."""
    trainer_class = _trainer_class(config)
    options = trainer_class.Config.from_dict(_trainer_options(config.trainer, trainer_class, config.trainer_options))
    trainer = trainer_class(policy, options)  # a trainer makes its own KL reference (LoRA: the adapter off)
    if not isinstance(trainer, Trainer):
        raise CuaError(f"trainer {config.trainer!r} built a {type(trainer).__name__}, not a cua_bench_rl Trainer")
    return trainer
