"""Positions as a command line or a form names them: a whole position or only its body."""

from __future__ import annotations

from griot._core import GriotError, NotationError, Position, Variant

__all__ = ["position_arg"]


def position_arg(variant: str, text: str | None) -> Position:
    """The position ``text`` names for ``variant``: a whole position (``abapa 4,4,4,4,4,4/4,4,4,4,4,4
    0-0 S 0 -``) or only its body (``4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -``); the start when ``text``
    is None or empty. A whole position of another variant is refused, as is anything that is
    neither (NotationError or VariantError, naming what is wrong).
    """
    game = Variant(variant)
    if not text or not text.strip():
        return game.start()
    text = text.strip()
    head = text.split(maxsplit=1)[0]
    try:
        Variant(head)
    except GriotError:
        return game.position(text)
    pos = Position(text)
    if pos.variant.canonical != game.canonical:
        raise NotationError(f"the position is of {pos.variant.canonical}, not {game.canonical}")
    return pos
