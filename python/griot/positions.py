"""Positions as a command line or a form names them: a whole position or only its body.

Every command that takes a position takes it the same three ways (:func:`position_options`,
:func:`command_position`): whole as its argument (``griot show 'abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S
0 -'``, quoted or not), whole with ``--position``, or a variant and the body after it (``griot show
abapa -p '4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -'``, or as the argument); a variant alone is its start.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from griot._core import GriotError, NotationError, Position, Variant

__all__ = ["FORMS", "command_position", "position_arg", "position_options"]

_START = "4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"

#: The forms a command takes a position in, as an error lists them.
FORMS = (
    f"give the position whole ('abapa {_START}'), as the argument or with --position, or a variant "
    f"and its body (abapa --position '{_START}'); a variant alone is its start"
)

F = TypeVar("F", bound=Callable[..., Any])


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


def command_position(words: Sequence[str], option: str | None) -> Position:
    """The position a command was given: ``words`` (its arguments, joined by spaces: a variant, a
    variant and its body, or a whole position) and ``option`` (``--position``: a whole position,
    or the body when ``words`` name the variant). A position that does not parse raises its error
    with :data:`FORMS` added; nothing at all is a NotationError naming them."""
    text = " ".join(w.strip() for w in words if w.strip())
    if not text and not (option and option.strip()):
        raise NotationError(f"no position: {FORMS}")
    try:
        if not text:
            assert option is not None
            return Position(option.strip())
        if option and option.strip():
            if len(text.split()) > 1:
                raise NotationError("a position both as the argument and with --position")
            return position_arg(text, option)
        head, _, body = text.partition(" ")
        return position_arg(head, body or None)
    except GriotError as e:
        if not option and " " not in text:
            raise  # a variant alone: its own error (an unknown variant) says it all
        raise type(e)(f"{e}; {FORMS}") from None


def position_options(f: F) -> F:
    """A command's ``POSITION...`` arguments and ``--position``/``-p`` (:func:`command_position`)."""
    import click

    f = click.option(
        "--position",
        "-p",
        "position",
        default=None,
        help="The position: whole, or its body after the VARIANT argument.",
    )(f)
    return click.argument("words", nargs=-1, metavar="[VARIANT [BODY] | POSITION]")(f)
