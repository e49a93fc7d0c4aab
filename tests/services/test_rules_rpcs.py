"""Every RulesService RPC against a real server, through the sync and async clients; every game
family the server lists plays random moves, cross-checked against the native core in-process."""

from __future__ import annotations

import asyncio
import random

import griot
import pytest
from griot.client import AsyncRulesClient, RulesClient
from griot.v1 import common_pb2, rules_pb2

ABAPA_START = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"


def test_list_variants_matches_the_core(rules: RulesClient) -> None:
    families = rules.list_variants()
    assert [f.id for f in families] == sorted(v.id for v in griot.variants())
    abapa = next(f for f in families if f.id == "abapa")
    assert abapa.name and abapa.description and abapa.builtin
    assert abapa.kind == rules_pb2.FAMILY_KIND_RULE_FILE
    holes = next(o for o in abapa.options if o.name == "holes")
    assert holes.type == rules_pb2.OPTION_TYPE_INT
    assert holes.default_value.int_value == 6
    assert (holes.range.min, holes.range.max) == (1, 18)
    assert holes.description
    leb = next(f for f in families if f.id == "leb-bbut-ahbochen")
    leb_holes = next(o for o in leb.options if o.name == "holes")
    assert leb_holes.WhichOneof("allowed") == "choices"
    assert list(leb_holes.choices.values) == [2, 4, 6, 8, 10]


def test_describe_variant(rules: RulesClient) -> None:
    d = rules.describe_variant("abapa(seeds=4,holes=4)")
    assert d.variant == "abapa(holes=4)"
    assert d.family.id == "abapa"
    assert {s.name: s.value.int_value for s in d.settings} == {
        "holes": 4,
        "max_turns": 2000,
        "repetitions": 3,
        "seeds": 4,
    }
    assert d.rules and all(isinstance(line, str) and line for line in d.rules)
    g = d.geometry
    assert (g.rows, g.cols, g.stores, g.sowing_direction) == (2, 4, True, "counter-clockwise")
    assert [c.label for c in g.cells] == ["a", "b", "c", "d", "A", "B", "C", "D"]
    assert [c.index for c in g.cells] == list(range(8))
    assert g.cells[0].owner == common_pb2.PLAYER_SOUTH and g.cells[0].row == 0 and g.cells[0].col == 0
    # North's first hole A sits above South's last hole d (counter-clockwise sowing).
    assert g.cells[4].owner == common_pb2.PLAYER_NORTH and (g.cells[4].row, g.cells[4].col) == (1, 3)
    assert d.start_position == "abapa(holes=4) 4,4,4,4/4,4,4,4 0-0 S 0 -"


def test_start_position(rules: RulesClient) -> None:
    s = rules.start_position("abapa")
    assert s.position.notation == ABAPA_START
    assert s.position.variant == "abapa"
    assert s.position.body == "4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"
    assert s.position.side_to_move == common_pb2.PLAYER_SOUTH
    assert s.position.turns == 0
    assert not s.position.HasField("outcome")
    assert list(s.legal_moves) == ["a", "b", "c", "d", "e", "f"]


def test_list_legal_moves(rules: RulesClient) -> None:
    assert rules.legal_moves(ABAPA_START) == ["a", "b", "c", "d", "e", "f"]
    assert rules.legal_moves(griot.Position(ABAPA_START).play("c")) == ["A", "B", "C", "D", "E", "F"]


def test_apply_move_returns_position_events_and_moves(rules: RulesClient) -> None:
    r = rules.apply_move(ABAPA_START, "c")
    assert r.position.notation == "abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 N 1 -"
    assert r.position.side_to_move == common_pb2.PLAYER_NORTH
    assert r.position.turns == 1
    assert r.move == "c"
    assert len(r.events) == 1
    lap = r.events[0]
    assert lap.kind == common_pb2.TURN_EVENT_KIND_LAP
    assert lap.HasField("cell") and lap.cell == 2
    assert lap.seeds == 4 and list(lap.cells) == [3, 4, 5, 6]
    assert list(r.legal_moves) == ["A", "B", "C", "D", "E", "F"]


def test_apply_move_splits_a_variant_with_options_from_the_body(rules: RulesClient) -> None:
    start = griot.Variant("abapa(holes=4)").start()
    r = rules.apply_move(start, "a")
    expected = start.play("a")
    assert r.position.notation == str(expected)
    assert r.position.variant == "abapa(holes=4)" == expected.variant.canonical
    assert f"{r.position.variant} {r.position.body}" == r.position.notation
    assert list(r.position.cells) == list(expected.cells)
    assert not r.position.HasField("outcome")


def test_apply_move_reports_captures(rules: RulesClient) -> None:
    # South's single seed in f lands in North's A, making it 2: a final capture.
    r = rules.apply_move("abapa 0,0,0,0,0,1/1,4,4,4,4,4 0-0 S 10 -", "f")
    assert r.position.notation == "abapa 0,0,0,0,0,0/0,4,4,4,4,4 2-0 N 11 -"
    lap, capture = r.events
    assert (lap.kind, lap.cell, list(lap.cells), lap.seeds) == (common_pb2.TURN_EVENT_KIND_LAP, 5, [6], 1)
    assert capture.kind == common_pb2.TURN_EVENT_KIND_CAPTURE
    assert (capture.player, capture.cell, capture.seeds, capture.detail) == (
        common_pb2.PLAYER_SOUTH,
        6,
        2,
        "final",
    )
    assert not capture.cells


def test_apply_move_that_ends_the_game_reports_the_outcome(rules: RulesClient) -> None:
    # A grand slam (forfeited in abapa) leaves neither player a move: the game ends, North ahead.
    r = rules.apply_move("abapa 0,0,0,0,0,1/1,0,0,0,0,0 20-20 S 30 -", "f")
    assert [e.kind for e in r.events] == [
        common_pb2.TURN_EVENT_KIND_LAP,
        common_pb2.TURN_EVENT_KIND_CAPTURE_FORFEITED,
    ]
    assert list(r.events[1].cells) == [6]
    assert r.position.HasField("outcome")
    o = r.position.outcome
    assert (o.result, o.south_score, o.north_score, o.reason) == (
        common_pb2.GAME_RESULT_NORTH_WINS,
        20,
        22,
        "neither_can_move",
    )
    assert not r.legal_moves
    with pytest.raises(griot.IllegalMoveError) as info:
        rules.apply_move(r.position.notation, "A")
    assert info.value.code == "game_over"  # type: ignore[attr-defined]


def test_apply_move_to_the_end_of_a_game(rules: RulesClient) -> None:
    rng = random.Random(7)
    pos = rules.start_position("abapa(holes=3,max_turns=120,seeds=2)").position.notation
    moves = rules.legal_moves(pos)
    captures = 0
    for _ in range(500):
        if not moves:
            break
        r = rules.apply_move(pos, rng.choice(moves))
        captures += sum(e.kind == common_pb2.TURN_EVENT_KIND_CAPTURE for e in r.events)
        pos, moves = r.position.notation, list(r.legal_moves)
        if r.position.HasField("outcome"):
            assert not moves
    info = rules.parse_position(pos)
    assert info.HasField("outcome"), "the game ends by max_turns at the latest"
    core = griot.Position(pos).outcome
    assert core is not None
    assert (info.outcome.south_score, info.outcome.north_score) == core.scores
    assert info.outcome.reason == core.reason
    expected = {
        "S": common_pb2.GAME_RESULT_SOUTH_WINS,
        "N": common_pb2.GAME_RESULT_NORTH_WINS,
        None: common_pb2.GAME_RESULT_DRAW,
    }
    assert info.outcome.result == expected[core.winner]


def test_validate_move(rules: RulesClient) -> None:
    ok = rules.validate_move(ABAPA_START, "c")
    assert (ok.legal, ok.move, ok.reason, ok.message) == (True, "c", "", "")
    wrong_side = rules.validate_move(ABAPA_START, "A")
    assert not wrong_side.legal and wrong_side.move == "A" and wrong_side.reason == "not_own_hole"
    assert "belongs to North" in wrong_side.message
    empty = rules.validate_move("abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 S 2 -", "c")
    assert (empty.legal, empty.reason) == (False, "empty_hole")
    garbage = rules.validate_move(ABAPA_START, "zz")
    assert (garbage.legal, garbage.move, garbage.reason) == (False, "", "bad_notation")
    assert "zz" in garbage.message
    # Turns of several steps: an illegal step before the last, an unfinished turn, an empty step.
    early = rules.validate_move(ABAPA_START, "A/b")
    assert (early.legal, early.reason) == (False, "not_own_hole") and "step 1" in early.message
    iki = "ikibuguzo 0,0,1,0,1,1,5,0,2,5,1,4,0,4,5,0/2,0,2,0,2,0,2,1,4,3,5,4,5,0,2,3 N 9 0 -"
    unfinished = rules.validate_move(iki, "i2:cw")
    assert (unfinished.legal, unfinished.reason) == (False, "turn_unfinished")
    assert "keep+o1:cw/ccw" in unfinished.message  # the ways the turn goes on
    assert rules.validate_move(iki, "i2:cw/ccw").legal
    assert (rules.validate_move(iki, "i7/ccw").reason, rules.validate_move(iki, "A/").reason) == (
        "turn_over",
        "bad_notation",
    )


def test_parse_position_normalises(rules: RulesClient) -> None:
    info = rules.parse_position("abapa(holes=6,seeds=4) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -")
    assert info.notation == ABAPA_START and info.variant == "abapa"


def test_format_position(rules: RulesClient) -> None:
    info = rules.format_position("abapa(seeds=4,holes=4)", "0,5,5,5/5,4,4,4 0-0 N 1 -")
    assert info.notation == "abapa(holes=4) 0,5,5,5/5,4,4,4 0-0 N 1 -"
    assert info.side_to_move == common_pb2.PLAYER_NORTH and info.turns == 1


def test_client_accepts_core_values(rules: RulesClient) -> None:
    pos = griot.Variant("abapa").start()
    mv = pos.legal_moves()[0]
    assert rules.apply_move(pos, mv).position.notation == str(pos.play(mv))


def test_every_variant_plays_random_moves(rules: RulesClient) -> None:
    """Every family the server lists: describe it, start it, play up to 30 random moves, and check
    every step against the native core."""
    rng = random.Random(2024)
    families = rules.list_variants()
    assert families
    for family in families:
        d = rules.describe_variant(family.id)
        assert d.variant == family.id and d.geometry.cells
        start = rules.start_position(family.id)
        assert start.position.notation == d.start_position
        pos, moves = start.position.notation, list(start.legal_moves)
        for _ in range(30):
            if not moves:
                break
            mv = rng.choice(moves)
            assert rules.validate_move(pos, mv).legal
            r = rules.apply_move(pos, mv)
            core_after, core_events = griot.Position(pos).play_with_events(mv)
            assert r.position.notation == str(core_after)
            assert [e.seeds for e in r.events] == [e.seeds for e in core_events]
            assert list(r.legal_moves) == [m.text for m in core_after.legal_moves()]
            assert all(c.index < len(d.geometry.cells) for c in d.geometry.cells)
            for e in r.events:
                assert e.kind != common_pb2.TURN_EVENT_KIND_UNSPECIFIED
                assert all(c < len(d.geometry.cells) for c in e.cells)
            pos, moves = r.position.notation, list(r.legal_moves)


def test_async_client_every_rpc(rules_server) -> None:  # type: ignore[no-untyped-def]
    async def scenario() -> None:
        async with AsyncRulesClient(rules_server.target) as c:
            assert [f.id for f in await c.list_variants()][:1] == [sorted(v.id for v in griot.variants())[0]]
            assert (await c.describe_variant("oware")).variant == "oware"
            start = await c.start_position("abapa")
            assert start.position.notation == ABAPA_START
            assert await c.legal_moves(ABAPA_START) == list(start.legal_moves)
            r = await c.apply_move(ABAPA_START, "c")
            assert r.position.turns == 1
            assert (await c.validate_move(r.position.notation, "c")).reason == "not_own_hole"
            assert (await c.parse_position(r.position.notation)).notation == r.position.notation
            assert (await c.format_position("abapa", r.position.body)).notation == r.position.notation
            # Concurrent calls on one channel.
            results = await asyncio.gather(*(c.apply_move(ABAPA_START, m) for m in "abcdef"))
            assert [x.move for x in results] == list("abcdef")
            with pytest.raises(griot.IllegalMoveError) as info:
                await c.apply_move(r.position.notation, "c")
            assert info.value.code == "not_own_hole"  # type: ignore[attr-defined]

    asyncio.run(scenario())
