"""The Python API of the native core, end to end.

Variants and options, positions and their notation, moves and legality, the exception hierarchy
(with .option / .field / .code), user rule files, turn events, successors, perft / divide, keys,
random playouts, garbage in (hypothesis) -> only GriotError subclasses out, and mypy.stubtest of
griot._core against python/griot/_core.pyi.

Expected positions were worked out by hand from docs/rules/awale-collection.md and docs/NOTATION.md
(the same boards as crates/griot-core/tests/sowing_rules.rs). Holes: South a..f = cells 0..5,
North A..F = cells 6..11; counter-clockwise is cell + 1.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import griot
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
START = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"

BUILTIN = [
    "2-4",
    "abapa",
    "adji-boto",
    "adjito",
    "awale",
    "dakar",
    "darra",
    "erherhe",
    "french-wari",
    "halusa",
    "jodu",
    "kale",
    "leb-bbut-ahbochen",
    "nyakun",
    "ot-tjin",
    "oware",
    "songo-duala",
    "vai-lung-thlan",
    "wouri",
]


# --- variants ---------------------------------------------------------------------------------


def test_variant_parsing_canonical_strings_and_options() -> None:
    v = griot.Variant("abapa(seeds=3,holes=4)")
    assert v.id == "abapa"
    assert v.canonical == "abapa(holes=4,seeds=3)"
    assert str(v) == "abapa(holes=4,seeds=3)"
    assert repr(v) == 'Variant("abapa(holes=4,seeds=3)")'
    assert v.options == {"holes": 4, "seeds": 3, "max_turns": 2000, "repetitions": 3}
    # Default values are dropped; any order and spacing normalise to one canonical string.
    assert griot.Variant("abapa(holes=6,max_turns=2000,seeds=4)").canonical == "abapa"
    assert griot.Variant("abapa( holes = 4 , seeds = 3 )").canonical == "abapa(holes=4,seeds=3)"
    assert griot.Variant("leb-bbut-ahbochen(holes=8)").canonical == "leb-bbut-ahbochen(holes=8)"
    assert griot.Variant("abapa(max_turns=50)").options["max_turns"] == 50
    # Equality and hashing go by the canonical string.
    assert griot.Variant("abapa(seeds=3,holes=4)") == griot.Variant("abapa(holes=4,seeds=3)")
    assert griot.Variant("abapa(holes=4)") == "abapa(holes=4)"
    assert griot.Variant("abapa") != griot.Variant("awale")
    assert len({griot.Variant("abapa"), griot.Variant("abapa(holes=6)")}) == 1
    assert v.name and isinstance(v.name, str)
    assert v.rules and all(isinstance(r, str) and r for r in v.rules)
    assert v.start() == "abapa(holes=4,seeds=3) 3,3,3,3/3,3,3,3 0-0 S 0 -"
    assert v.position("3,3,3,3/3,3,3,0 0-3 N 1 -") == "abapa(holes=4,seeds=3) 3,3,3,3/3,3,3,0 0-3 N 1 -"


def test_every_builtin_variant_starts_and_is_listed() -> None:
    listed = {info.id: info for info in griot.variants()}
    for vid in BUILTIN:
        assert vid in listed and listed[vid].builtin and listed[vid].kind == "rule_file"
        v = griot.Variant(vid)
        start = v.start()
        assert start.variant == v
        assert start.side_to_move == "S" and start.turns == 0
        assert start.outcome is None and not start.is_over
        assert griot.Position(str(start)) == start
        own = list("abcdef") + (list("ABCDEF") if vid == "nyakun" else [])  # Nyakun: any hole
        assert [str(m) for m in start.legal_moves()] == own
        assert listed[vid].variant() == v
        assert griot.builtin_rule_file(vid) is not None
    assert griot.builtin_rule_file("no-such-game") is None
    holes = next(o for o in listed["leb-bbut-ahbochen"].options if o.name == "holes")
    assert holes.default == 6 and holes.choices == (2, 4, 6, 8, 10)
    assert listed["abapa"].variant(holes=4, seeds=3).canonical == "abapa(holes=4,seeds=3)"


def test_geometry() -> None:
    g = griot.Variant("awale(holes=4)").geometry
    assert (g["rows"], g["cols"], g["stores"], g["sowing"]) == (2, 4, True, "counter-clockwise")
    labels = [c["label"] for c in g["cells"]]
    assert labels == ["a", "b", "c", "d", "A", "B", "C", "D"]
    # North's A is above South's d (North's left is South's right).
    assert (g["cells"][4]["row"], g["cells"][4]["col"], g["cells"][4]["owner"]) == (1, 3, "N")
    assert (g["cells"][0]["row"], g["cells"][0]["col"], g["cells"][0]["owner"]) == (0, 0, "S")


def test_unknown_variant() -> None:
    with pytest.raises(griot.UnknownVariantError) as e:
        griot.Variant("mancala")
    assert isinstance(e.value, griot.VariantError)
    assert isinstance(e.value, griot.GriotError)
    assert isinstance(e.value, ValueError)
    assert "mancala" in str(e.value)
    with pytest.raises(griot.UnknownVariantError):
        griot.Position("mancala 4,4/4,4 0-0 S 0 -")


@pytest.mark.parametrize(
    ("text", "option"),
    [
        ("abapa(holes=40)", "holes"),
        ("abapa(holes=0)", "holes"),
        ("abapa(seeds=x)", "seeds"),
        ("abapa(colour=red)", "colour"),
        ("leb-bbut-ahbochen(holes=3)", "holes"),
        ("abapa(holes=12,seeds=11)", "seeds"),  # 264 seeds: more than a board holds
        ("abapa(max_turns=0)", "max_turns"),
    ],
)
def test_bad_option_names_the_option(text: str, option: str) -> None:
    with pytest.raises(griot.VariantError) as e:
        griot.Variant(text)
    assert not isinstance(e.value, griot.UnknownVariantError)
    assert e.value.option == option
    assert option in str(e.value)


@pytest.mark.parametrize("text", ["abapa(holes=4", "Abapa", "abapa(holes)", "abapa(holes=4,holes=5)", ""])
def test_malformed_variant_strings(text: str) -> None:
    with pytest.raises(griot.VariantError) as e:
        griot.Variant(text)
    assert not isinstance(e.value, griot.UnknownVariantError)
    assert str(e.value).startswith("malformed variant string")


def test_error_attributes_exist_on_every_instance() -> None:
    # The stub declares `option: str | None`, `field: str | None`, `code: str | None` on the
    # classes: every instance must have them (None where nothing is at fault), not only the
    # instances where the core had a value to set.
    with pytest.raises(griot.VariantError) as e:
        griot.Variant("abapa(holes=4")
    assert getattr(e.value, "option", "missing") is None
    with pytest.raises(griot.UnknownVariantError) as u:
        griot.Variant("mancala")
    assert getattr(u.value, "option", "missing") is None


# --- positions and notation -------------------------------------------------------------------


def test_position_values() -> None:
    p = griot.Position("awale 0,0,0,0,0,3/0,2,1,0,0,4 1-2 N 7 -")
    assert str(p) == "awale 0,0,0,0,0,3/0,2,1,0,0,4 1-2 N 7 -"
    assert repr(p) == 'Position("awale 0,0,0,0,0,3/0,2,1,0,0,4 1-2 N 7 -")'
    assert p.variant == "awale"
    assert (p.side_to_move, p.turns) == ("N", 7)
    assert p.cells == [0, 0, 0, 0, 0, 3, 0, 2, 1, 0, 0, 4]
    assert p.stores == (1, 2)
    assert p == griot.Position(str(p)) and hash(p) == hash(griot.Position(str(p)))
    # Surrounding whitespace is tolerated; the text is normalised.
    assert griot.Position("  " + str(p) + "\n") == p
    # Option order in the variant string normalises too.
    q = griot.Position("abapa(seeds=3,holes=4) 3,3,3,3/3,3,3,3 0-0 S 0 -")
    assert str(q) == "abapa(holes=4,seeds=3) 3,3,3,3/3,3,3,3 0-0 S 0 -"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("abapa 4,4,4,4,4,x/4,4,4,4,4,4 0-0 S 0 -", "field 2 (board)"),
        ("abapa 4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", "field 2 (board)"),
        ("abapa 4,4,4,4,4,4 0-0 S 0 -", "field 2 (board)"),
        ("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0:0 S 0 -", "field 3 (stores)"),
        ("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-x S 0 -", "field 3 (stores)"),
        ("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 W 0 -", "field 4 (side)"),
        ("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S -1 -", "field 5 (turns)"),
        ("abapa(max_turns=5) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 6 -", "field 5 (turns)"),
        ("abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 what", "field 6 (flags)"),
        ("awale 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 cap=S", "field 6 (flags)"),
    ],
)
def test_malformed_notation_names_the_field(text: str, field: str) -> None:
    with pytest.raises(griot.NotationError) as e:
        griot.Position(text)
    assert str(e.value).startswith(field), str(e.value)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "abapa",
        "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0",
        "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 - extra",
        "abapa 200,200,0,0,0,0/0,0,0,0,0,0 0-0 S 0 -",  # more than 255 seeds
    ],
)
def test_malformed_notation(text: str) -> None:
    with pytest.raises(griot.NotationError):
        griot.Position(text)


# --- moves and legality -----------------------------------------------------------------------


def test_moves_and_play() -> None:
    p = griot.Position(START)
    moves = p.legal_moves()
    assert moves == ["a", "b", "c", "d", "e", "f"]
    assert moves[2].text == "c" and str(moves[2]) == "c" and repr(moves[2]) == 'Move("c")'
    assert p.parse_move("c") == moves[2] and p.parse_move(moves[2]) == moves[2]
    assert hash(p.parse_move("c")) == hash(moves[2])
    assert p.play("c") == "abapa 4,4,0,5,5,5/5,4,4,4,4,4 0-0 N 1 -"
    assert p.play(moves[2]) == p.play("c")
    assert p.is_legal("c") and not p.is_legal("C") and not p.is_legal("garbage")
    p.check("c")
    # The start position is unchanged (positions are immutable).
    assert str(p) == START


@pytest.mark.parametrize(
    ("text", "move", "code"),
    [
        (START, "A", "not_own_hole"),
        (START, "pass", "cannot_pass"),
        ("abapa 0,4,4,4,4,4/4,4,4,4,4,4 0-0 S 1 -", "a", "empty_hole"),
        ("adji-boto 1,8,8,8,8,8/8,8,8,8,8,8 0-0 S 0 -", "a", "too_few_seeds"),
        ("abapa 0,0,0,0,1,1/0,0,0,0,0,0 0-0 S 0 -", "e", "must_feed"),
        ("awale 0,0,0,0,1,1/0,0,0,0,0,0 0-0 S 0 -", "e", "must_not_starve"),
        ("awale 0,0,0,0,0,0/1,0,0,0,0,0 0-0 S 0 -", "A", "game_over"),
    ],
)
def test_illegal_moves_carry_a_code(text: str, move: str, code: str) -> None:
    p = griot.Position(text)
    with pytest.raises(griot.IllegalMoveError) as e:
        p.play(move)
    assert e.value.code == code
    assert isinstance(e.value, griot.GriotError)
    with pytest.raises(griot.IllegalMoveError) as e2:
        p.check(move)
    assert e2.value.code == code
    with pytest.raises(griot.IllegalMoveError):
        p.play_with_events(move)
    assert not p.is_legal(move)


@pytest.mark.parametrize("move", ["z", "g", "G", "a:cw", "a:left", "", "aa", "pas"])
def test_unparsable_moves_are_notation_errors(move: str) -> None:
    p = griot.Position(START)
    with pytest.raises(griot.NotationError):
        p.parse_move(move)
    with pytest.raises(griot.NotationError):
        p.play(move)


def test_outcome() -> None:
    p = griot.Position("abapa 1,1,1,1,1,1/1,1,1,1,1,1 25-11 S 40 -")
    o = p.outcome
    assert o is not None and p.is_over
    assert (o.winner, o.scores, o.reason) == ("S", (31, 17), "store_threshold")
    assert p.legal_moves() == []
    draw = griot.Position("awale 4,4,4,4,4,4/4,4,4,4,4,3 0-1 N 7 cycle").outcome
    assert draw is not None and (draw.winner, draw.scores, draw.reason) == (None, (24, 24), "endless_cycle")
    going = griot.Position(START)
    assert going.outcome is None
    e = going.endless_outcome()
    assert (e.winner, e.scores, e.reason) == (None, (24, 24), "endless_cycle")
    assert e == going.endless_outcome()
    # The game goes on to an end, every outcome consistent with the legal moves.
    pos = griot.Position("abapa(max_turns=30) 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -")
    while not pos.is_over:
        pos = pos.play(pos.legal_moves()[0])
    assert pos.outcome is not None and pos.legal_moves() == []


# --- user rule files --------------------------------------------------------------------------


def test_load_rule_file(tmp_path: Path) -> None:
    path = tmp_path / "t-py-choice.toml"
    path.write_text(
        'id = "t-py-choice"\nname = "Choice test"\n[sowing]\ndirection = "choice"\n'
        '[capture]\nvalues = [2]\nterritory = "opponent"\n',
        encoding="utf-8",
    )
    v = griot.load_rule_file(path)
    assert v.canonical == "t-py-choice" and v.name == "Choice test"
    assert any(i.id == "t-py-choice" and not i.builtin for i in griot.variants())
    p = v.position("1,0,0,0,0,0/1,0,0,0,0,1 0-0 S 0 -")
    assert p.legal_moves() == ["a:ccw", "a:cw"]
    # a(1) clockwise: F 1->2, captured.
    assert p.play("a:cw") == "t-py-choice 0,0,0,0,0,0/1,0,0,0,0,0 2-0 N 1 -"
    with pytest.raises(griot.NotationError):
        p.parse_move("a")  # a direction is needed
    # Loading a string path works too.
    assert griot.load_rule_file(str(path)) == v


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('id = "t-bad"\n[capture]\nvalues = [2]\nterritory = "theirs"\n', "capture.territory"),
        ('id = "t-bad"\n[sowing]\nleave_one = true\n', "sowing.min_seeds"),
        ('id = "t-bad"\n[board]\nholes = 19\n', "board.holes"),
        ('id = "t-bad"\n[relay]\nvalues = [1]\n', "relay.mode"),
        ('id = "t-bad"\ncolour = "red"\n', "colour"),
        ('name = "no id"\n', "id"),
        ('id = "awale"\n', "id"),  # a built-in id
    ],
)
def test_rule_file_errors_name_the_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(griot.RuleFileError) as e:
        griot.load_rule_file(path)
    assert e.value.field == field
    assert field in str(e.value)
    assert str(path) in str(e.value)
    assert isinstance(e.value, griot.VariantError)


def test_rule_file_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('id = "t-broken"\n[board\n', encoding="utf-8")
    with pytest.raises(griot.RuleFileError) as e:
        griot.load_rule_file(path)
    assert e.value.field is not None and e.value.field.startswith("line 2")


def test_missing_rule_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        griot.load_rule_file(tmp_path / "nope.toml")


# --- events -----------------------------------------------------------------------------------


def _events(text: str, move: str) -> tuple[griot.Position, list[tuple[object, ...]]]:
    after, events = griot.Position(text).play_with_events(move)
    # list(): TurnEvent.cells currently comes back as bytes (see test_event_cells_are_a_list).
    return after, [(e.kind, e.player, e.cell, list(e.cells), e.seeds, e.detail) for e in events]


def test_event_cells_are_a_list() -> None:
    # The stub (and the docs) say `cells: list[int]`; a Vec<u8> must not arrive as bytes.
    _, events = griot.Position("awale 0,0,0,0,0,3/0,2,1,0,0,4 0-0 S 0 -").play_with_events("f")
    assert isinstance(events[0].cells, list) and events[0].cells == [6, 7, 8]
    assert isinstance(events[1].cells, list) and events[1].cells == []


def test_events_of_a_capture_with_a_chain() -> None:
    # Awale f(3): A 0->1, B 2->3, C 1->2: C (final) and B (chain) taken; A (1) stops the chain.
    after, ev = _events("awale 0,0,0,0,0,3/0,2,1,0,0,4 0-0 S 0 -", "f")
    assert after == "awale 0,0,0,0,0,0/1,0,0,0,0,4 5-0 N 1 -"
    assert ev == [
        ("lap", None, 5, [6, 7, 8], 3, None),
        ("capture", "S", 8, [], 2, "final"),
        ("capture", "S", 7, [], 3, "chain"),
    ]


def test_events_of_a_relay_sowing() -> None:
    # 2-4 a(3) keeps 1: b 0->1, c 2->3 (goes on); c keeps 1: d 0->1, e 1->2: ends, e captured.
    after, ev = _events("2-4 3,0,2,0,1,0/2,2,2,2,2,2 0-0 S 0 -", "a")
    assert after == "2-4 1,1,1,1,0,0/2,2,2,2,2,2 2-0 N 1 -"
    assert ev == [
        ("lap", None, 0, [1, 2], 2, None),
        ("lap", None, 2, [3, 4], 2, None),
        ("capture", "S", 4, [], 2, "final"),
    ]


def test_events_of_flow_captures_forfeits_and_passes() -> None:
    # Darra e(4): f 3->4 taken by South, A 3->4 taken by North, during South's sowing.
    after, ev = _events("darra 0,0,0,0,4,3/3,0,1,1,1,1 0-0 S 0 -", "e")
    assert after == "darra 0,0,0,0,0,0/0,1,2,1,1,1 4-4 N 1 cap=N"
    assert ev == [
        ("lap", None, 4, [5], 4, None),
        ("capture", "S", 5, [], 4, "flow"),
        ("lap", None, 4, [6], 4, None),
        ("capture", "N", 6, [], 4, "flow"),
        ("lap", None, 4, [7, 8], 4, None),
    ]
    # abapa grand slam: B and A would be everything: forfeited.
    after, ev = _events("abapa 0,0,0,0,0,2/1,1,0,0,0,0 0-0 S 0 -", "f")
    assert after == "abapa 0,0,0,0,0,0/2,2,0,0,0,0 0-0 N 1 -"
    assert ev == [("lap", None, 5, [6, 7], 2, None), ("capture_forfeited", None, None, [7, 6], 0, None)]
    # A pass.
    p = griot.Position("2-4 1,1,0,0,0,0/2,2,2,2,2,2 0-0 S 7 -")
    assert p.legal_moves() == ["pass"]
    after, ev = _events(str(p), "pass")
    assert after == "2-4 1,1,0,0,0,0/2,2,2,2,2,2 0-0 N 8 -"
    assert ev == [("pass", "S", None, [], 0, None)]


def test_events_of_a_cut_relay() -> None:
    v = griot.register_rule_file('id = "t-py-endless"\n[relay]\nmode = "continues-on"\nvalues = ["1.."]\n')
    after, events = v.position("1,0,0,0,0,0/0,0,0,0,0,0 0-0 S 0 -").play_with_events("a")
    # The single seed moves a hole a lap; lap 1,000 ends on hole 1000 mod 12 = 4 (e).
    assert after == "t-py-endless 0,0,0,0,1,0/0,0,0,0,0,0 0-0 N 1 cycle"
    assert len(events) == 1001 and events[-1].kind == "cut" and events[-1].seeds == 1000
    assert after.outcome is not None and after.outcome.reason == "endless_cycle"


# --- successors, perft, keys, playouts -------------------------------------------------------


def test_successors() -> None:
    p = griot.Position("awale 0,0,0,0,0,3/0,2,1,0,0,4 0-0 S 0 -")
    succ = p.successors()
    assert [m for m, _ in succ] == p.legal_moves() == ["f"]
    assert succ[0][1] == "awale 0,0,0,0,0,0/1,0,0,0,0,4 5-0 N 1 -"
    start = griot.Position(START)
    for move, pos in start.successors():
        assert pos == start.play(move)
    assert griot.Position("awale 0,0,0,0,0,0/1,0,0,0,0,0 0-0 S 0 -").successors() == []


def test_perft_and_divide() -> None:
    p = griot.Position(START)
    # tests/perft/awale.txt (cross-checked against OpenSpiel).
    assert [p.perft(d) for d in range(5)] == [1, 6, 36, 190, 1014]
    # Two turns in, no hole is empty yet: every pair of moves is a leaf.
    assert p.divide(2) == {m: 6 for m in "abcdef"}
    d = p.divide(3)
    assert sorted(d) == list("abcdef") and sum(d.values()) == 190
    # After f(4) (A..D -> 5) no North move reaches f: 6 x 5 leaves. After a(4), North's C, D, E
    # and F (4 each) refill a, A and B do not: 4 x 6 + 2 x 5.
    assert d["f"] == 30 and d["a"] == 34
    assert griot.perft(START, 3) == griot.perft(p, 3) == 190
    assert sum(p.divide(4).values()) == 1014
    assert griot.Position("awale 0,0,0,0,0,0/1,0,0,0,0,0 0-0 S 0 -").perft(3) == 0


def test_key_and_zobrist() -> None:
    a = griot.Position("awale 0,0,0,0,0,3/0,2,1,0,0,4 1-2 S 7 -")
    b = griot.Position("awale 0,0,0,0,0,3/0,2,1,0,0,4 1-2 S 7 -")
    assert isinstance(a.key, bytes) and a.key == b.key and a.zobrist == b.zobrist
    assert isinstance(a.zobrist, int) and 0 <= a.zobrist < 2**64
    # 12 holes, 2 stores, side to move, flags.
    assert a.key == bytes([0, 0, 0, 0, 0, 3, 0, 2, 1, 0, 0, 4, 1, 2, 0, 0])
    # The turn counter is not part of the key.
    later = griot.Position("awale 0,0,0,0,0,3/0,2,1,0,0,4 1-2 S 99 -")
    assert later.key == a.key and later.zobrist == a.zobrist
    # Anything else is.
    for other in [
        "awale 0,0,0,0,0,3/0,2,1,0,0,4 1-2 N 7 -",
        "awale 0,0,0,0,0,3/0,2,1,0,0,4 2-1 S 7 -",
        "awale 0,0,0,0,3,0/0,2,1,0,0,4 1-2 S 7 -",
        "awale 0,0,0,0,0,3/0,2,1,0,0,4 1-2 S 7 cycle",
    ]:
        o = griot.Position(other)
        assert o.key != a.key and o.zobrist != a.zobrist, other
    # Keys of all positions two turns from the start: distinct positions, distinct keys.
    seen: dict[bytes, str] = {}
    for _, p1 in griot.Position(START).successors():
        for _, p2 in p1.successors():
            text = str(p2).rsplit(" ", 2)[0]  # without turns and flags
            assert seen.setdefault(p2.key, text) == text


def test_random_playouts_are_deterministic() -> None:
    p = griot.Variant("oware").start()
    n = p.random_playouts(20, seed=5)
    assert n > 0
    assert p.random_playouts(20, seed=5) == n
    assert p.random_playouts(20, 5) == n
    assert len({p.random_playouts(20, seed=s) for s in range(6)}) > 1
    assert p.random_playouts(0, seed=1) == 0
    over = griot.Position("awale 0,0,0,0,0,0/1,0,0,0,0,0 0-0 S 0 -")
    assert over.random_playouts(10) == 0


# --- garbage in: only GriotError out ----------------------------------------------------------

VALID = [
    START,
    "oware 1,0,0,0,0,4/0,1,0,2,0,2 4-4 N 1 cap=N",
    "leb-bbut-ahbochen(holes=4) 4,0,5,5/4,4,0,6 2-2 S 3 -",
    "2-4(max_turns=9) 1,1,0,0,0,0/2,2,2,2,2,2 0-0 S 7 -",
]
NOTATION_CHARS = "0123456789,/- SNabcdefABCDEF()=_:\t\nxé+cyclecap"


def _mutations(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(VALID))
    chars = list(text)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.integers(0, 2))
        i = draw(st.integers(0, max(len(chars) - 1, 0)))
        if op == 0 and chars:
            chars[i] = draw(st.sampled_from(NOTATION_CHARS))
        elif op == 1:
            chars.insert(i, draw(st.sampled_from(NOTATION_CHARS)))
        elif chars:
            del chars[i : i + draw(st.integers(1, 5))]
    return "".join(chars)


mutated_positions = st.composite(_mutations)()
garbage_text = st.one_of(
    st.text(max_size=60), st.text(alphabet=NOTATION_CHARS, max_size=60), mutated_positions
)


def _only_griot_errors(fn: object, *args: object) -> object:
    try:
        return fn(*args)  # type: ignore[operator]
    except griot.GriotError:
        return None


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(garbage_text)
def test_garbage_positions_raise_only_griot_errors(text: str) -> None:
    p = _only_griot_errors(griot.Position, text)
    if isinstance(p, griot.Position):
        # Whatever parses round-trips and answers every question.
        assert griot.Position(str(p)) == p
        assert str(griot.Position(str(p))) == str(p)
        _ = (p.outcome, p.key, p.zobrist, p.cells, p.stores)
        for m in p.legal_moves()[:3]:
            p.play(m)


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=40), st.from_regex(r"[a-z0-9_-]{1,12}(\(([a-z_]{1,9}=[a-z0-9-]{0,5},?){0,4}\)?)?")
    )
)
def test_garbage_variants_raise_only_griot_errors(text: str) -> None:
    v = _only_griot_errors(griot.Variant, text)
    if isinstance(v, griot.Variant):
        assert griot.Variant(v.canonical) == v
        v.start()


moves_garbage = st.one_of(
    st.text(max_size=12),
    st.from_regex(r"[a-zA-Z]{1,2}(:(cw|ccw|x))?", fullmatch=True),
    st.just("pass"),
    st.integers(),
    st.none(),
    st.binary(max_size=4),
    st.floats(allow_nan=True),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(VALID), moves_garbage)
def test_garbage_moves_raise_only_griot_errors(text: str, move: object) -> None:
    p = griot.Position(text)
    for fn in (p.parse_move, p.check, p.play, p.play_with_events):
        _only_griot_errors(fn, move)
    assert isinstance(p.is_legal(move), bool)  # type: ignore[arg-type]
    m = _only_griot_errors(p.parse_move, move)
    if isinstance(m, griot.Move):
        assert p.parse_move(m.text) == m
        assert p.is_legal(m) == (m in p.legal_moves())


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_garbage_rule_files_raise_only_rule_file_errors(text: str) -> None:
    try:
        v = griot.register_rule_file(text)
    except griot.RuleFileError as e:
        assert e.field
        return
    v.start().random_playouts(2, seed=1)


def test_lone_surrogates_raise_griot_errors() -> None:
    # A Python str may hold lone surrogates; they are garbage like any other text.
    for call in (griot.Position, griot.Variant, griot.Position(START).parse_move):
        with pytest.raises(griot.GriotError):
            call("abapa \ud800")


# --- stubs ------------------------------------------------------------------------------------


@pytest.mark.timeout(600)  # stubtest alone is given 300 s
def test_stubtest_core() -> None:
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (pip install -e .[test]): cannot run mypy.stubtest")
    r = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "griot._core"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_near_turn_limit_follows_the_variant_limit_and_the_margin() -> None:
    """A search may be cached only when it stays clear of the turn limit by the engine's margin
    (8 turns): the same rule the engine's table, the workers' Redis tier and the gateway's cache
    apply, from the variant's own `max_turns` (default and option)."""
    start = griot.Variant("abapa").start()
    assert start.turns == 0
    assert not start.near_turn_limit(40)
    assert start.near_turn_limit(2000 - 8)
    assert not start.near_turn_limit(2000 - 9)
    short = griot.Variant("abapa(max_turns=30)").start()
    assert not short.near_turn_limit(21)
    assert short.near_turn_limit(22)
    after = short.play(short.legal_moves()[0])
    assert after.turns == 1
    assert after.near_turn_limit(21) and not after.near_turn_limit(20)


@pytest.mark.parametrize(("variant", "steps"), [("ikibuguzo", 9), ("sabouiyya", 13)])
def test_near_turn_limit_counts_every_step_a_turn_can_take(variant: str, steps: int) -> None:
    """Ikibuguzo and Sabou'iyya count a turn's steps in `turns` (a choice after a capture, the
    H'ajeb capture sequence): a search d turns deep can move the count by (d + 1) x the longest
    turn's steps (9 and 13), so caching stops that much earlier than one step a turn would."""
    start = griot.Variant(f"{variant}(max_turns=100)").start()
    # (d + 1) * steps + 8 >= 100 first holds at the d below.
    first = next(d for d in range(100) if (d + 1) * steps + 8 >= 100)
    assert start.near_turn_limit(first)
    assert not start.near_turn_limit(first - 1)
    # A game of one step a turn is still clear of the same limit at that depth.
    assert not griot.Variant("abapa(max_turns=100)").start().near_turn_limit(first)
