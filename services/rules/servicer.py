"""The ``griot.v1.RulesService`` servicer: parse the request, call the core, build the response
(the messages with :mod:`griot.messages`).

Every method is a plain function of the request. Bad input surfaces as Griot's own exceptions
(``NotationError``, ``VariantError``, ``IllegalMoveError``, ...), which
:func:`griot.services.common.rpc.unary` maps to statuses in one place. The core calls take
microseconds, so they run on the event loop.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import griot
import grpc
from griot import IllegalMoveError, NotationError, Position, Variant
from griot.history import REPETITION, earlier_from, repetition_outcome
from griot.messages import (
    add_event,
    family_message,
    fill_outcome,
    fill_position_info,
    geometry_message,
    option_value,
    position_info,
)
from griot.services.common.rpc import Handler, Req, Resp, RpcMetrics, unary
from griot.services.common.server import ServiceSpec
from griot.v1 import rules_pb2, rules_pb2_grpc

SERVICE_NAME: str = rules_pb2.DESCRIPTOR.services_by_name["RulesService"].full_name


@functools.lru_cache(maxsize=1)
def _families() -> dict[str, rules_pb2.VariantFamily]:
    return {f.id: family_message(f) for f in griot.variants()}


def _moves(pos: Position) -> list[str]:
    return [m.text for m in pos.legal_moves()]


def _game_over(message: str) -> IllegalMoveError:
    e = IllegalMoveError(message)
    e.code = "game_over"
    return e


# ---------------------------------------------------------------------------------------------
# The servicer


def _servicer_class(metrics: RpcMetrics) -> type[rules_pb2_grpc.RulesServiceServicer]:
    """The servicer class with its handlers wrapped for this server's metrics."""

    def rpc(name: str) -> Callable[[Callable[[Any, Req], Resp]], Handler[Req, Resp]]:
        return unary("RulesService", name, metrics)

    class RulesServicer(rules_pb2_grpc.RulesServiceServicer):
        """Stateless rules over Griot notation."""

        @rpc("ListVariants")
        def ListVariants(self, request: rules_pb2.ListVariantsRequest) -> rules_pb2.ListVariantsResponse:
            # User rule files may be registered at any time: the list is rebuilt when it changes.
            families = _families()
            if len(families) != len(griot.families()):
                _families.cache_clear()
                families = _families()
            return rules_pb2.ListVariantsResponse(families=list(families.values()))

        @rpc("DescribeVariant")
        def DescribeVariant(
            self, request: rules_pb2.DescribeVariantRequest
        ) -> rules_pb2.DescribeVariantResponse:
            variant = Variant(request.variant)
            family = _families().get(variant.id) or family_message(
                next(f for f in griot.variants() if f.id == variant.id)
            )
            return rules_pb2.DescribeVariantResponse(
                variant=variant.canonical,
                family=family,
                settings=[
                    rules_pb2.OptionSetting(name=k, value=option_value(v))
                    for k, v in sorted(variant.options.items())
                ],
                rules=variant.rules,
                geometry=geometry_message(variant.geometry),
                start_position=str(variant.start()),
            )

        @rpc("StartPosition")
        def StartPosition(self, request: rules_pb2.StartPositionRequest) -> rules_pb2.StartPositionResponse:
            pos = Variant(request.variant).start()
            return rules_pb2.StartPositionResponse(position=position_info(pos), legal_moves=_moves(pos))

        @rpc("ListLegalMoves")
        def ListLegalMoves(
            self, request: rules_pb2.ListLegalMovesRequest
        ) -> rules_pb2.ListLegalMovesResponse:
            pos = Position(request.position)
            earlier = earlier_from(pos, request.history if request.HasField("history") else None)
            if repetition_outcome(pos, earlier) is not None:
                return rules_pb2.ListLegalMovesResponse()
            return rules_pb2.ListLegalMovesResponse(moves=_moves(pos))

        @rpc("ApplyMove")
        def ApplyMove(self, request: rules_pb2.ApplyMoveRequest) -> rules_pb2.ApplyMoveResponse:
            pos = Position(request.position)
            earlier = earlier_from(pos, request.history if request.HasField("history") else None)
            move = pos.parse_move(request.move)
            try:
                if repetition_outcome(pos, earlier) is not None:
                    raise _game_over("the game is over: the position occurred for the third time")
                after, events = pos.play_with_events(move)
            except IllegalMoveError as e:
                # Name the move in the ErrorInfo (the core's message already names it in words).
                e.move = move.text  # type: ignore[attr-defined]
                raise
            repeated = repetition_outcome(after, [*earlier, pos]) if earlier else None
            response = rules_pb2.ApplyMoveResponse(
                move=move.text, legal_moves=[] if repeated is not None else _moves(after)
            )
            fill_position_info(response.position, after)
            if repeated is not None:
                fill_outcome(response.position.outcome, repeated)
                response.position.outcome.reason = REPETITION
            for event in events:
                add_event(response.events, event)
            return response

        @rpc("ValidateMove")
        def ValidateMove(self, request: rules_pb2.ValidateMoveRequest) -> rules_pb2.ValidateMoveResponse:
            pos = Position(request.position)
            earlier = earlier_from(pos, request.history if request.HasField("history") else None)
            try:
                move = pos.parse_move(request.move)
            except NotationError as e:
                return rules_pb2.ValidateMoveResponse(legal=False, reason="bad_notation", message=str(e))
            except IllegalMoveError as e:
                # A turn of several steps whose step before the last is not legal: the move text
                # is read step by step, each in the position the one before leaves.
                return rules_pb2.ValidateMoveResponse(
                    legal=False, reason=getattr(e, "code", None) or "illegal_move", message=str(e)
                )
            try:
                if repetition_outcome(pos, earlier) is not None:
                    raise _game_over("the game is over: the position occurred for the third time")
                pos.check(move)
            except IllegalMoveError as e:
                return rules_pb2.ValidateMoveResponse(
                    legal=False,
                    move=move.text,
                    reason=getattr(e, "code", None) or "illegal_move",
                    message=str(e),
                )
            return rules_pb2.ValidateMoveResponse(legal=True, move=move.text)

        @rpc("ParsePosition")
        def ParsePosition(self, request: rules_pb2.ParsePositionRequest) -> rules_pb2.ParsePositionResponse:
            return rules_pb2.ParsePositionResponse(position=position_info(Position(request.position)))

        @rpc("FormatPosition")
        def FormatPosition(
            self, request: rules_pb2.FormatPositionRequest
        ) -> rules_pb2.FormatPositionResponse:
            pos = Variant(request.variant).position(request.body)
            return rules_pb2.FormatPositionResponse(position=position_info(pos))

    return RulesServicer


def add_servicers(server: grpc.aio.Server, metrics: RpcMetrics) -> None:
    """Adds the RulesService servicer to a server."""
    rules_pb2_grpc.add_RulesServiceServicer_to_server(_servicer_class(metrics)(), server)


def service_spec() -> ServiceSpec:
    """The rules service as :func:`griot.services.common.server.run` serves it."""
    return ServiceSpec(
        name="rules", service_names=[SERVICE_NAME], add_servicers=add_servicers, env_prefix="GRIOT_RULES"
    )
