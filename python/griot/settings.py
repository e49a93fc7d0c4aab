"""One settings type per component, read from the environment, its command-line options made from it.

A component's settings are a frozen dataclass whose fields are made with :func:`setting`: each
names its help and its environment variable. :func:`from_env` reads them from the environment;
:func:`add_arguments` (argparse: the servers) and :func:`click_options` (click: ``griot up``) make
one option per field, whose default is the variable's value, else the field's default, and whose
help ends with the variable's name. So every default lives in the dataclass, and an option, its
variable and its default cannot drift apart.

A field's variable is its component's prefix and the field's name in capitals
(``GRIOT_GATEWAY_WINDOW``), unless the field names its own: the URLs every component shares
(``GRIOT_BROKER_URL``, ``GRIOT_RESULT_URL``, ``GRIOT_CACHE_URL``) and names the deploy files
already use keep theirs.

Why a helper of our own and not pydantic-settings: the fields are a few dozen strings, numbers and
flags, which the field's type says how to read; pydantic and its compiled core would be new
dependencies of every install (the plain command line's too) and more to import at each server's
start, for no check that mypy and these parsers do not already make.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import types
import typing
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "BROKER_URL",
    "CACHE_URL",
    "GATEWAY_METRICS_PORT",
    "GATEWAY_PORT",
    "RULES_METRICS_PORT",
    "RULES_PORT",
    "WEB_PORT",
    "WORKER_METRICS_PORT",
    "add_arguments",
    "at_least",
    "click_options",
    "env_name",
    "from_args",
    "from_env",
    "parse_bool",
    "setting",
]

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])

#: What an optional setting's variable or option reads as "none".
NONE_WORDS = ("", "none", "off")

#: The Celery broker (and result backend) every component shares.
BROKER_URL = "redis://127.0.0.1:6379/0"
#: The cache Redis every component shares (the workers' transposition cache, the gateway's cache).
CACHE_URL = "redis://127.0.0.1:6380/0"
#: The ports of the servers (``griot up`` starts them there; each server's own default).
RULES_PORT, RULES_METRICS_PORT = 50051, 9464
GATEWAY_PORT, GATEWAY_METRICS_PORT = 50052, 9465
WEB_PORT = 8080
#: The first worker's metrics port under ``griot up`` (worker i: + i).
WORKER_METRICS_PORT = 9470


def setting(
    default: Any = dataclasses.MISSING,
    *,
    help: str,
    env: str | None = None,
    flag: str | tuple[str, ...] | None = None,
    parse: Callable[[str], Any] | None = None,
    choices: Sequence[str] | None = None,
    default_factory: Callable[[], Any] | None = None,
) -> Any:
    """A settings field: its default (or ``default_factory``), its help, and optionally its own
    variable ``env`` (else prefix + name), its option ``flag`` (else ``--name-with-dashes``), how
    to read it from text (else by its type) and the ``choices`` it may take."""
    metadata = {"help": help, "env": env, "flag": flag, "parse": parse, "choices": choices}
    if default_factory is not None:
        return dataclasses.field(default_factory=default_factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def at_least(low: int) -> Callable[[str], int]:
    """A parser of integers not under ``low``."""

    def parse(text: str) -> int:
        n = int(text)
        if n < low:
            raise ValueError(f"{n} is under {low}")
        return n

    parse.__name__ = "int"
    return parse


def parse_bool(text: str) -> bool:
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not on or off")


def _parser(kind: Any) -> tuple[Callable[[str], Any], bool]:
    """How to read a field of type ``kind`` from text, and whether it may be None."""
    args = typing.get_args(kind)
    if typing.get_origin(kind) in (typing.Union, types.UnionType) and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return _parser(rest[0])[0], True
    if kind is bool:
        return parse_bool, False
    if kind in (int, float, str, Path):
        return typing.cast(Callable[[str], Any], kind), False
    raise TypeError(f"no parser for a setting of type {kind!r}: give parse=")


def _read(parse: Callable[[str], Any], optional: bool, text: str) -> Any:
    if optional and text.strip().lower() in NONE_WORDS:
        return None
    return parse(text)


def _reader(parse: Callable[[str], Any], optional: bool) -> Callable[[str], Any]:
    def read(text: str) -> Any:
        return _read(parse, optional, text)

    read.__name__ = getattr(parse, "__name__", "value")  # argparse names it in its errors
    return read


def env_name(f: dataclasses.Field[Any], prefix: str | None) -> str | None:
    """The variable of field ``f`` under ``prefix``."""
    own: str | None = f.metadata.get("env")
    if own is not None:
        return own
    return f"{prefix}_{f.name.upper()}" if prefix else None


def _fields(cls: type) -> Iterator[tuple[dataclasses.Field[Any], Callable[[str], Any], bool]]:
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if "help" not in f.metadata:
            continue
        parse, optional = _parser(hints[f.name])
        yield f, f.metadata.get("parse") or parse, optional


def _flags(f: dataclasses.Field[Any]) -> tuple[str, ...]:
    flag = f.metadata.get("flag") or "--" + f.name.replace("_", "-")
    return (flag,) if isinstance(flag, str) else tuple(flag)


def _default(f: dataclasses.Field[Any], defaults: Any) -> Any:
    if defaults is not None:
        return getattr(defaults, f.name)
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    raise TypeError(f"setting {f.name} has no default")


def _from_environ(
    f: dataclasses.Field[Any],
    parse: Callable[[str], Any],
    optional: bool,
    prefix: str | None,
    environ: Mapping[str, str],
) -> tuple[bool, Any]:
    """Whether the environment sets ``f``, and its value. An empty variable counts as unset,
    except for an optional setting, where it is None."""
    name = env_name(f, prefix)
    raw = environ.get(name) if name else None
    if raw is None or (raw == "" and not optional):
        return False, None
    try:
        return True, _read(parse, optional, raw)
    except ValueError as e:
        raise ValueError(f"environment variable {name}={raw!r}: {e}") from None


def from_env(
    cls: type[T],
    prefix: str | None = None,
    environ: Mapping[str, str] = os.environ,
    defaults: T | None = None,
) -> T:
    """``cls`` read from the environment (what it does not set: ``defaults``, else the fields' own)."""
    values = {}
    for f, parse, optional in _fields(cls):
        found, value = _from_environ(f, parse, optional, prefix, environ)
        values[f.name] = value if found else _default(f, defaults)
    return cls(**values)


def add_arguments(
    parser: argparse.ArgumentParser,
    cls: type,
    prefix: str | None = None,
    defaults: Any = None,
    environ: Mapping[str, str] = os.environ,
) -> None:
    """One option per field of ``cls`` (see the module header)."""
    for f, parse, optional in _fields(cls):
        found, value = _from_environ(f, parse, optional, prefix, environ)
        name = env_name(f, prefix)
        text = f.metadata["help"].replace("%", "%%")
        parser.add_argument(
            *_flags(f),
            dest=f.name,
            type=_reader(parse, optional),
            default=value if found else _default(f, defaults),
            choices=f.metadata.get("choices"),
            help=f"{text} [{name}]" if name else text,
        )


def from_args(cls: type[T], args: argparse.Namespace, **more: Any) -> T:
    """``cls`` from a namespace parsed by a parser given :func:`add_arguments` (``more``: the
    fields set otherwise)."""
    return cls(**{f.name: getattr(args, f.name) for f, _, _ in _fields(cls)}, **more)


def click_options(cls: type, prefix: str | None = None, exclude: Sequence[str] = ()) -> Callable[[F], F]:
    """A decorator that adds one click option per field of ``cls`` (but ``exclude``); a flag for
    a boolean field."""
    import click

    def decorate(fn: F) -> F:
        for f, parse, optional in reversed(list(_fields(cls))):
            if f.name in exclude:
                continue
            name = env_name(f, prefix)
            default = _default(f, None)
            text = f"{f.metadata['help']} [{name}]" if name else f.metadata["help"]
            flags = _flags(f)
            if parse is parse_bool and not optional:
                fn = click.option(*flags, f.name, envvar=name, is_flag=True, default=default, help=text)(fn)
                continue
            choices = f.metadata.get("choices")
            kind: Any = click.Choice(list(choices)) if choices else _ClickType(parse, optional)
            fn = click.option(
                *flags,
                f.name,
                envvar=name,
                type=kind,
                default=default,
                show_default=default is not None and default != "",
                help=text,
            )(fn)
        return fn

    return decorate


class _ClickType:
    """A click parameter type over a setting's parser (made lazily: click is imported only by
    the command line)."""

    def __new__(cls, parse: Callable[[str], Any], optional: bool) -> Any:
        import click

        class Setting(click.ParamType):  # type: ignore[type-arg]
            name = "text" if parse is str else getattr(parse, "__name__", "value")

            def convert(self, value: Any, param: Any, ctx: Any) -> Any:
                if not isinstance(value, str):
                    return value
                try:
                    return _read(parse, optional, value)
                except ValueError as e:
                    self.fail(str(e), param, ctx)

        return Setting()
