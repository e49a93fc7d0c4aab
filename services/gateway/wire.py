"""The requests' checks and the messages built from results, shared by the servicer
(:mod:`~griot.services.gateway.servicer`) and the live sessions (:mod:`~griot.services.gateway.live`)."""

from __future__ import annotations

import time
from typing import Any

import griot
import grpc
from google.protobuf import duration_pb2
from griot import scores
from griot.history import repetition_outcome
from griot.priority import Priority
from griot.services.gateway.auth import Guard, Principal
from griot.services.gateway.cache import EvalResult
from griot.services.gateway.config import GatewayConfig
from griot.services.gateway.evaluator import BATCH, INTERACTIVE, Want
from griot.status import StatusError
from griot.v1 import analysis_pb2

#: Time kept back from the caller's deadline for the answer to travel.
DEADLINE_MARGIN = 0.15
MAX_NODES = 10**12
"""Largest ``max_nodes`` taken (the workers' bound)."""
PRIORITIES = frozenset(analysis_pb2.Priority.values())


def bad_request(message: str) -> StatusError:
    return StatusError(grpc.StatusCode.INVALID_ARGUMENT, "bad_request", message)


def seconds_of(d: duration_pb2.Duration) -> float:
    return d.seconds + d.nanos / 1e9


def evaluation(r: EvalResult, final: bool) -> analysis_pb2.Evaluation:
    """An :class:`EvalResult` as a message (move scores only when every move was scored)."""
    e = analysis_pb2.Evaluation(
        depth=r.depth,
        score=scores.score_message(r.value, r.exact),
        best_move=r.best or "",
        pv=r.pv,
        nodes=r.nodes,
        nps=int(r.nodes / r.time) if r.time > 0 else 0,
        final=final,
        from_cache=r.from_cache,
    )
    e.elapsed.FromNanoseconds(int(r.time * 1e9))
    if r.all:
        for move, value, _bound in r.moves:
            e.move_scores.add(move=move, score=scores.score_message(value, r.move_exact.get(move)))
    return e


def shared_evaluation(r: EvalResult, final: bool) -> analysis_pb2.Evaluation:
    """:func:`evaluation`, built once per result (every subscriber of a flight gets the same)."""
    e = r.messages.get(final)
    if e is None:
        e = r.messages[final] = evaluation(r, final)
    return e


def finished(
    pos: griot.Position, earlier: list[griot.Position] | None = None
) -> tuple[griot.GameOutcome, bool] | None:
    """How the game ended at ``pos``, and whether by the repetition rule: one the rules end, or,
    with the game's history, a position's third occurrence. None while it goes on."""
    outcome = pos.outcome
    if outcome is not None and not pos.legal_moves():
        return outcome, False
    repeated = repetition_outcome(pos, earlier) if earlier else None
    return None if repeated is None else (repeated, True)


def game_over(pos: griot.Position, earlier: list[griot.Position] | None = None) -> EvalResult | None:
    """The evaluation of a finished game (no search): one the rules end, or, with the game's
    history, a position's third occurrence."""
    end = finished(pos, earlier)
    if end is None:
        return None
    outcome = end[0]
    value = 0 if outcome.winner is None else (griot.WIN if outcome.winner == pos.side_to_move else -griot.WIN)
    return EvalResult(depth=0, value=value, best=None)


def _too_close() -> StatusError:
    return StatusError(grpc.StatusCode.DEADLINE_EXCEEDED, "deadline", "the deadline is too close")


def still_in_time(want: Want) -> Want:
    """``want`` again for a later request of the same call (the call's deadline does not move):
    refused as :func:`check_want` refuses it once that deadline is too close."""
    if want.deadline is not None and want.deadline <= time.time():
        raise _too_close()
    return want


def check_want(
    guard: Guard,
    config: GatewayConfig,
    limits: analysis_pb2.SearchLimits,
    priority: analysis_pb2.Priority.ValueType,
    default_priority: Priority,
    all_moves: bool,
    p: Principal,
    context: Any,
) -> Want:
    """The search a request asks for (``limits``, ``priority``, every move's score or not), checked
    against the caller's key and the call's deadline."""
    if priority not in PRIORITIES:
        raise bad_request(f"unknown priority {priority}")
    prio = {
        analysis_pb2.PRIORITY_INTERACTIVE: INTERACTIVE,
        analysis_pb2.PRIORITY_BATCH: BATCH,
    }.get(priority, default_priority)
    seconds = None
    if limits.HasField("max_time"):
        if limits.max_time.seconds < 0 or limits.max_time.nanos < 0:
            raise bad_request("max_time must not be negative")
        seconds = seconds_of(limits.max_time) or None
    guard.check_time(p, seconds)
    if limits.max_depth:
        guard.check_depth(p, limits.max_depth)
        depth = limits.max_depth
    elif seconds is not None:
        depth = p.limits.max_depth
    else:
        depth = min(config.default_depth, p.limits.max_depth)
    deadline = None
    remaining = context.time_remaining()
    if remaining is not None:
        if remaining <= DEADLINE_MARGIN:
            raise _too_close()
        deadline = time.time() + remaining - DEADLINE_MARGIN
    nodes = limits.max_nodes or None
    if nodes is not None and nodes > MAX_NODES:
        raise bad_request(f"max_nodes {nodes} is beyond {MAX_NODES}")
    return Want(depth, seconds, all_moves, prio, p.name, deadline, nodes)


__all__ = [
    "DEADLINE_MARGIN",
    "MAX_NODES",
    "PRIORITIES",
    "bad_request",
    "check_want",
    "evaluation",
    "game_over",
    "seconds_of",
    "shared_evaluation",
    "still_in_time",
]
