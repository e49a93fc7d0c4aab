"""Core values as ``griot.v1`` messages: positions, outcomes, turn events, variant families.

The rules service answers with these messages, the gateway puts outcomes and players in its
reports, and ``griot analyze-game`` builds the same report in process: one conversion for all.
Functions named ``fill_*`` write into a message in place (a message passed to a constructor or
assigned is copied, so a field is filled where it lives).
"""

from __future__ import annotations

from typing import Any

import griot
from griot import GameOutcome, Position, TurnEvent
from griot.v1 import common_pb2, rules_pb2

__all__ = [
    "EVENT_KINDS",
    "PLAYERS",
    "RESULTS",
    "add_event",
    "family_message",
    "fill_outcome",
    "fill_position_info",
    "geometry_message",
    "option_value",
    "outcome_message",
    "position_info",
]

#: A side (``"S"``, ``"N"``; None: nobody) as ``griot.v1.Player``.
PLAYERS = {"S": common_pb2.PLAYER_SOUTH, "N": common_pb2.PLAYER_NORTH, None: common_pb2.PLAYER_UNSPECIFIED}
RESULTS = {
    "S": common_pb2.GAME_RESULT_SOUTH_WINS,
    "N": common_pb2.GAME_RESULT_NORTH_WINS,
    None: common_pb2.GAME_RESULT_DRAW,
}
EVENT_KINDS = {
    "lap": common_pb2.TURN_EVENT_KIND_LAP,
    "capture": common_pb2.TURN_EVENT_KIND_CAPTURE,
    "capture_forfeited": common_pb2.TURN_EVENT_KIND_CAPTURE_FORFEITED,
    "pass": common_pb2.TURN_EVENT_KIND_PASS,
    "place": common_pb2.TURN_EVENT_KIND_PLACE,
    "step": common_pb2.TURN_EVENT_KIND_STEP,
    "fill": common_pb2.TURN_EVENT_KIND_FILL,
    "note": common_pb2.TURN_EVENT_KIND_NOTE,
    "cut": common_pb2.TURN_EVENT_KIND_CUT,
}


def fill_outcome(msg: common_pb2.GameOutcome, outcome: GameOutcome) -> None:
    """Writes a finished game's outcome into ``msg`` (in place, as :func:`fill_position_info`)."""
    south, north = outcome.scores
    msg.result = RESULTS[outcome.winner]
    msg.south_score = south
    msg.north_score = north
    msg.reason = outcome.reason


def outcome_message(outcome: GameOutcome) -> common_pb2.GameOutcome:
    """A finished game's outcome."""
    msg = common_pb2.GameOutcome()
    fill_outcome(msg, outcome)
    return msg


def fill_position_info(info: common_pb2.PositionInfo, pos: Position) -> None:
    """Writes the canonical notation and the fields of a position into ``info`` (in place: a message
    passed to a constructor or assigned is copied)."""
    notation = str(pos)
    # The canonical variant string has no spaces (docs/NOTATION.md): it ends at the first one.
    variant, _, body = notation.partition(" ")
    info.notation = notation
    info.variant = variant
    info.body = body
    info.side_to_move = PLAYERS[pos.side_to_move]
    info.turns = pos.turns
    info.cells.extend(pos.cells)
    stores = pos.stores
    if stores is not None:
        info.south_store, info.north_store = stores
    outcome = pos.outcome
    if outcome is not None:
        fill_outcome(info.outcome, outcome)


def position_info(pos: Position) -> common_pb2.PositionInfo:
    """The canonical notation and the fields of a position."""
    info = common_pb2.PositionInfo()
    fill_position_info(info, pos)
    return info


def add_event(events: Any, event: TurnEvent) -> None:
    """Appends one step of a turn to a repeated ``TurnEvent`` field. A kind this API version does
    not know keeps its name in ``detail``."""
    kind = EVENT_KINDS.get(event.kind, common_pb2.TURN_EVENT_KIND_UNSPECIFIED)
    detail = event.detail or ("" if kind != common_pb2.TURN_EVENT_KIND_UNSPECIFIED else event.kind)
    msg = events.add(
        kind=kind, player=PLAYERS[event.player], cells=event.cells, seeds=event.seeds, detail=detail
    )
    if event.cell is not None:
        msg.cell = event.cell


def option_value(value: int | bool) -> rules_pb2.OptionValue:
    """An option's value (bool is checked first: in Python it is also an int)."""
    if isinstance(value, bool):
        return rules_pb2.OptionValue(bool_value=value)
    return rules_pb2.OptionValue(int_value=value)


def family_message(info: griot.VariantInfo) -> rules_pb2.VariantFamily:
    """A game family with its options."""
    family = rules_pb2.VariantFamily(
        id=info.id,
        name=info.name,
        kind=rules_pb2.FAMILY_KIND_RULE_FILE if info.kind == "rule_file" else rules_pb2.FAMILY_KIND_MODULE,
        builtin=info.builtin,
        description=info.description,
        source=info.source,
    )
    for o in info.options:
        opt = family.options.add(
            name=o.name,
            type=rules_pb2.OPTION_TYPE_BOOL if o.type == "bool" else rules_pb2.OPTION_TYPE_INT,
            default_value=option_value(o.default),
            description=o.description,
        )
        if o.choices is not None:
            opt.choices.values.extend(o.choices)
        elif o.min is not None and o.max is not None:
            opt.range.min, opt.range.max = o.min, o.max
    return family


def geometry_message(geometry: dict[str, Any]) -> rules_pb2.BoardGeometry:
    """Board geometry from the core's dict."""
    msg = rules_pb2.BoardGeometry(
        rows=geometry["rows"],
        cols=geometry["cols"],
        stores=geometry["stores"],
        sowing_direction=geometry["sowing"],
    )
    for index, cell in enumerate(geometry["cells"]):
        msg.cells.add(
            index=index, row=cell["row"], col=cell["col"], owner=PLAYERS[cell["owner"]], label=cell["label"]
        )
    return msg
