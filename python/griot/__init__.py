"""Griot: an analysis backend for traditional board games (the mancala family and its neighbours).

The rules and the search run in the native core (``griot._core``, Rust); this package re-exports
its typed values and adds the client SDK, configuration and the CLI.

    >>> import griot
    >>> pos = griot.Variant("abapa").start()
    >>> [str(m) for m in pos.legal_moves()]
    ['a', 'b', 'c', 'd', 'e', 'f']
    >>> str(pos.play("c"))
    'abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 N 1 -'
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from griot._core import (
    ENGINE_VERSION,
    GameOutcome,
    GriotError,
    IllegalMoveError,
    Move,
    NotationError,
    Position,
    RuleFileError,
    TurnEvent,
    UnknownVariantError,
    Variant,
    VariantError,
    builtin_rule_file,
    families,
    register_rule_file,
)

__all__ = [
    "ENGINE_VERSION",
    "GameOutcome",
    "GriotError",
    "IllegalMoveError",
    "Move",
    "NotationError",
    "OptionInfo",
    "Position",
    "RuleFileError",
    "TurnEvent",
    "UnknownVariantError",
    "Variant",
    "VariantError",
    "VariantInfo",
    "builtin_rule_file",
    "load_rule_file",
    "perft",
    "variants",
]


@dataclass(frozen=True)
class OptionInfo:
    """One option a variant family accepts."""

    name: str
    type: str
    default: int | bool
    description: str
    min: int | None = None
    max: int | None = None
    choices: tuple[int, ...] | None = None


@dataclass(frozen=True)
class VariantInfo:
    """A game family: its id (the variant string without options), name and options."""

    id: str
    name: str
    kind: str
    builtin: bool
    description: str
    source: str
    options: tuple[OptionInfo, ...]

    def variant(self, **options: int | bool) -> Variant:
        """The variant with these options, e.g. ``info.variant(holes=4)``."""
        if not options:
            return Variant(self.id)
        text = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in options.items())
        return Variant(f"{self.id}({text})")


def variants() -> list[VariantInfo]:
    """Every game family Griot plays, sorted by id (user rule files included once loaded)."""
    out = []
    for f in families():
        opts = tuple(
            OptionInfo(
                name=o["name"],
                type=o["type"],
                default=o["default"],
                description=o["description"],
                min=o.get("min"),
                max=o.get("max"),
                choices=o.get("choices"),
            )
            for o in f["options"]
        )
        out.append(
            VariantInfo(
                id=f["id"],
                name=f["name"],
                kind=f["kind"],
                builtin=f["builtin"],
                description=f["description"],
                source=f["source"],
                options=opts,
            )
        )
    return out


def load_rule_file(path: str | Path) -> Variant:
    """Loads a user rule file (TOML) by path and registers its id as a variant.

    Raises RuleFileError naming the bad field, or OSError if the file cannot be read.
    """
    return register_rule_file(Path(path).read_text(encoding="utf-8"))


def perft(position: Position | str, depth: int) -> int:
    """Leaf count of the game tree ``depth`` turns deep from ``position``, every leaf made."""
    pos = position if isinstance(position, Position) else Position(position)
    return pos.perft(depth)
