"""Bad input gets a precise status, a machine-readable ErrorInfo and the right exception in the
client; nothing a client sends yields INTERNAL or a Python traceback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import griot
import grpc
import pytest
from conftest import MAX_RECEIVE_BYTES, ServerHandle
from google.rpc import error_details_pb2
from griot.client import RulesClient, ServiceError
from griot.status import ERROR_DOMAIN, error_info
from griot.v1 import rules_pb2, rules_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

INVALID = grpc.StatusCode.INVALID_ARGUMENT
NOT_FOUND = grpc.StatusCode.NOT_FOUND
EXHAUSTED = grpc.StatusCode.RESOURCE_EXHAUSTED

ABAPA = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
ABAPA_AFTER_C = "abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 N 1 -"
# North's row is empty: South must feed; a (1 seed) does not reach North's row.
MUST_FEED = "abapa 1,0,0,0,0,6/0,0,0,0,0,0 20-21 S 40 -"
# The same board in awale, whose rule is phrased "must not starve".
MUST_NOT_STARVE = "awale 1,0,0,0,0,6/0,0,0,0,0,0 20-21 S 40 -"
OVER = "abapa 0,0,0,0,0,0/0,0,0,0,0,0 24-24 S 50 -"


def _stub(server: ServerHandle) -> rules_pb2_grpc.RulesServiceStub:
    return rules_pb2_grpc.RulesServiceStub(grpc.insecure_channel(server.target))


@pytest.fixture(scope="module")
def stub(rules_server: ServerHandle) -> rules_pb2_grpc.RulesServiceStub:
    return _stub(rules_server)


def call(stub: rules_pb2_grpc.RulesServiceStub, method: str, **fields: Any) -> grpc.RpcError | Any:
    """Calls an RPC with the raw stub; returns the response or the RpcError."""
    request_type = getattr(rules_pb2, f"{method}Request")
    try:
        return getattr(stub, method)(request_type(**fields), timeout=10)
    except grpc.RpcError as e:
        return e


# (RPC, request fields, status, ErrorInfo reason, metadata subset)
BAD_INPUTS: list[tuple[str, dict[str, str], grpc.StatusCode, str, dict[str, str]]] = [
    # malformed notation
    ("ParsePosition", {"position": ""}, INVALID, "bad_notation", {"error": "notation"}),
    ("ParsePosition", {"position": "abapa"}, INVALID, "bad_notation", {}),
    ("ParsePosition", {"position": "abapa 4,4/4,4 0-0 S 0 -"}, INVALID, "bad_notation", {}),
    ("ParsePosition", {"position": "abapa 4,4,4,4,4,x/4,4,4,4,4,4 0-0 S 0 -"}, INVALID, "bad_notation", {}),
    ("ParsePosition", {"position": "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 W 0 -"}, INVALID, "bad_notation", {}),
    ("ParsePosition", {"position": "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S -1 -"}, INVALID, "bad_notation", {}),
    ("ListLegalMoves", {"position": "abapa  4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"}, INVALID, "bad_notation", {}),
    ("ApplyMove", {"position": ABAPA, "move": "zz"}, INVALID, "bad_notation", {}),
    ("ApplyMove", {"position": ABAPA, "move": ""}, INVALID, "bad_notation", {}),
    ("ApplyMove", {"position": ABAPA, "move": "c:cw"}, INVALID, "bad_notation", {}),
    ("FormatPosition", {"variant": "abapa", "body": "4,4,4"}, INVALID, "bad_notation", {}),
    # unknown variant
    ("StartPosition", {"variant": "chess"}, NOT_FOUND, "unknown_variant", {"error": "unknown_variant"}),
    ("DescribeVariant", {"variant": "no-such-game(holes=4)"}, NOT_FOUND, "unknown_variant", {}),
    ("ParsePosition", {"position": "chess 4,4/4,4 0-0 S 0 -"}, NOT_FOUND, "unknown_variant", {}),
    ("FormatPosition", {"variant": "chess", "body": "x"}, NOT_FOUND, "unknown_variant", {}),
    # malformed variant string / bad option
    ("StartPosition", {"variant": ""}, INVALID, "bad_variant", {"error": "variant"}),
    ("StartPosition", {"variant": "Abapa"}, INVALID, "bad_variant", {}),
    ("StartPosition", {"variant": "abapa(holes=4"}, INVALID, "bad_variant", {}),
    ("StartPosition", {"variant": "abapa(holes=4,holes=5)"}, INVALID, "bad_variant", {}),
    ("StartPosition", {"variant": "abapa(holes=99)"}, INVALID, "bad_option", {"option": "holes"}),
    ("StartPosition", {"variant": "abapa(holes=x)"}, INVALID, "bad_option", {"option": "holes"}),
    ("DescribeVariant", {"variant": "abapa(colour=red)"}, INVALID, "bad_option", {"option": "colour"}),
    (
        "DescribeVariant",
        {"variant": "leb-bbut-ahbochen(holes=3)"},
        INVALID,
        "bad_option",
        {"option": "holes"},
    ),
    (
        "ParsePosition",
        {"position": "abapa(seeds=0) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"},
        INVALID,
        "bad_option",
        {},
    ),
    # illegal moves, one of each kind the two-row engine has
    (
        "ApplyMove",
        {"position": ABAPA, "move": "A"},
        INVALID,
        "not_own_hole",
        {"error": "illegal_move", "move": "A"},
    ),
    (
        "ApplyMove",
        {"position": "abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 S 2 -", "move": "c"},
        INVALID,
        "empty_hole",
        {"move": "c"},
    ),
    ("ApplyMove", {"position": MUST_FEED, "move": "a"}, INVALID, "must_feed", {"move": "a"}),
    ("ApplyMove", {"position": MUST_NOT_STARVE, "move": "a"}, INVALID, "must_not_starve", {"move": "a"}),
    (
        "ApplyMove",
        {"position": "2-4 1,4,4,4,4,4/4,4,4,4,4,4 0-0 S 2 -", "move": "a"},
        INVALID,
        "too_few_seeds",
        {},
    ),
    ("ApplyMove", {"position": OVER, "move": "a"}, INVALID, "game_over", {}),
    ("ApplyMove", {"position": ABAPA, "move": "pass"}, INVALID, "cannot_pass", {}),
]


@pytest.mark.parametrize(
    ("method", "fields", "code", "reason", "metadata"),
    BAD_INPUTS,
    ids=[f"{m}-{r}-{i}" for i, (m, _, _, r, _) in enumerate(BAD_INPUTS)],
)
def test_bad_input_table(
    stub: rules_pb2_grpc.RulesServiceStub,
    method: str,
    fields: dict[str, str],
    code: grpc.StatusCode,
    reason: str,
    metadata: dict[str, str],
) -> None:
    result = call(stub, method, **fields)
    assert isinstance(result, grpc.RpcError), f"expected {code.name}, got a response: {result}"
    assert result.code() == code, result.details()
    details = result.details()
    assert details and "Traceback" not in details and "internal" not in details.lower()
    info = error_info(result)
    assert info is not None, "every bad-input error carries an ErrorInfo"
    assert info.domain == ERROR_DOMAIN
    assert info.reason == reason, details
    for k, v in metadata.items():
        assert info.metadata[k] == v


def test_illegal_move_maps_back_to_the_exception(rules: RulesClient) -> None:
    with pytest.raises(griot.IllegalMoveError) as e:
        rules.apply_move(ABAPA, "A")
    assert e.value.code == "not_own_hole"  # type: ignore[attr-defined]
    assert e.value.move == "A"  # type: ignore[attr-defined]
    assert "belongs to North" in str(e.value)
    # The client raises exactly what the core raises in-process.
    with pytest.raises(griot.IllegalMoveError) as local:
        griot.Position(ABAPA).play("A")
    assert str(local.value) == str(e.value)


@pytest.mark.parametrize(
    ("do", "exc", "attr"),
    [
        (lambda c: c.parse_position("abapa x"), griot.NotationError, None),
        (lambda c: c.start_position("chess"), griot.UnknownVariantError, None),
        (lambda c: c.start_position("abapa(holes=99)"), griot.VariantError, ("option", "holes")),
        (lambda c: c.apply_move(MUST_FEED, "a"), griot.IllegalMoveError, ("code", "must_feed")),
    ],
)
def test_client_raises_the_core_exceptions(
    rules: RulesClient, do: Callable[[RulesClient], Any], exc: type[Exception], attr: tuple[str, str] | None
) -> None:
    with pytest.raises(exc) as e:
        do(rules)
    assert isinstance(e.value, griot.GriotError)
    if attr is not None:
        assert getattr(e.value, attr[0]) == attr[1]


def test_unknown_variant_is_a_variant_error(rules: RulesClient) -> None:
    with pytest.raises(griot.VariantError):
        rules.describe_variant("chess")


def test_oversized_request_is_resource_exhausted(
    stub: rules_pb2_grpc.RulesServiceStub, rules: RulesClient
) -> None:
    huge = "abapa " + "4," * MAX_RECEIVE_BYTES
    result = call(stub, "ParsePosition", position=huge)
    assert isinstance(result, grpc.RpcError)
    assert result.code() == EXHAUSTED
    with pytest.raises(ServiceError) as e:
        rules.apply_move(huge, "a")
    assert e.value.code == EXHAUSTED
    # The server still serves afterwards.
    assert rules.parse_position(ABAPA).notation == ABAPA


def test_long_but_accepted_garbage_is_invalid_argument(stub: rules_pb2_grpc.RulesServiceStub) -> None:
    text = "abapa " + "9" * (MAX_RECEIVE_BYTES // 2)
    result = call(stub, "ParsePosition", position=text)
    assert isinstance(result, grpc.RpcError) and result.code() == INVALID


def test_error_info_round_trips_through_status_details(stub: rules_pb2_grpc.RulesServiceStub) -> None:
    result = call(stub, "ApplyMove", position=ABAPA, move="A")
    assert isinstance(result, grpc.RpcError)
    raw = dict(result.trailing_metadata() or ())["grpc-status-details-bin"]
    from google.rpc import status_pb2

    status = status_pb2.Status.FromString(raw)
    assert status.code == INVALID.value[0]
    info = error_details_pb2.ErrorInfo()
    assert status.details[0].Unpack(info)
    assert info.reason == "not_own_hole"


# ---------------------------------------------------------------------------------------------
# Generated garbage: always a clean INVALID_ARGUMENT / NOT_FOUND (or a valid answer), never INTERNAL.

OK_OR_CLEAN = {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.NOT_FOUND}
# Any Unicode except lone surrogates (which cannot be encoded as UTF-8 by the client at all).
text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=80)
notation_like = st.text(alphabet="abcdefABCDEF0123456789,/-(): =SNpasxwc\t\x00é", max_size=60)
prefixes = st.sampled_from(["", "abapa ", "awale(holes=4) ", "leb-bbut-ahbochen(holes=2) ", "oware "])


def _mutate(draw: st.DrawFn) -> str:
    base = draw(st.sampled_from([ABAPA, ABAPA_AFTER_C, MUST_FEED, OVER]))
    i = draw(st.integers(0, len(base)))
    j = draw(st.integers(i, min(len(base), i + 4)))
    return base[:i] + draw(notation_like.map(lambda s: s[:4])) + base[j:]


mutated = st.composite(_mutate)()
positions = st.one_of(text, notation_like, st.builds(lambda p, s: p + s, prefixes, notation_like), mutated)


def _assert_clean(result: Any) -> None:
    if isinstance(result, grpc.RpcError):
        assert result.code() in OK_OR_CLEAN, f"{result.code()}: {result.details()}"
        assert "Traceback" not in (result.details() or "")
        assert error_info(result) is not None


FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(position=positions, move=st.one_of(text, notation_like))
def test_garbage_positions_and_moves(stub: rules_pb2_grpc.RulesServiceStub, position: str, move: str) -> None:
    _assert_clean(call(stub, "ParsePosition", position=position))
    _assert_clean(call(stub, "ListLegalMoves", position=position))
    _assert_clean(call(stub, "ApplyMove", position=position, move=move))
    _assert_clean(call(stub, "ValidateMove", position=position, move=move))


@FUZZ
@given(
    variant=st.one_of(text, notation_like, st.builds(lambda s: "abapa(" + s, notation_like)),
    body=notation_like,
)
def test_garbage_variants(stub: rules_pb2_grpc.RulesServiceStub, variant: str, body: str) -> None:
    _assert_clean(call(stub, "StartPosition", variant=variant))
    _assert_clean(call(stub, "DescribeVariant", variant=variant))
    _assert_clean(call(stub, "FormatPosition", variant=variant, body=body))


@FUZZ
@given(move=st.one_of(text, notation_like))
def test_garbage_moves_on_valid_positions(stub: rules_pb2_grpc.RulesServiceStub, move: str) -> None:
    for pos in (ABAPA, ABAPA_AFTER_C, MUST_FEED, OVER):
        result = call(stub, "ApplyMove", position=pos, move=move)
        _assert_clean(result)
        v = call(stub, "ValidateMove", position=pos, move=move)
        assert not isinstance(v, grpc.RpcError), "ValidateMove answers for any move on a valid position"
