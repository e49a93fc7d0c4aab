"""Game records: round trips over every variant, and errors that name the line and the field."""

from __future__ import annotations

import random

import griot
import pytest
from griot.record import GameRecord, RecordError, dumps, load, loads
from hypothesis import given, settings
from hypothesis import strategies as st


def random_game(variant: str, seed: int, limit: int = 200) -> GameRecord:
    start = griot.Variant(variant).start()
    rnd = random.Random(seed)
    pos, moves = start, []
    while not pos.is_over and len(moves) < limit:
        mv = rnd.choice(pos.legal_moves())
        moves.append(mv.text)
        pos = pos.play(mv)
    return GameRecord.from_positions(start, moves, Event="test", South="a", North="b")


@pytest.mark.parametrize(
    "variant", [i.id for i in griot.variants()] + ["abapa(holes=4,seeds=3)", "leb-bbut-ahbochen(holes=8)"]
)
def test_round_trip_every_variant(variant: str) -> None:
    for seed in range(3):
        rec = random_game(variant, seed)
        text = dumps(rec)
        assert loads(text) == rec
        assert dumps(loads(text)) == text
        assert all(len(line) <= 80 for line in text.splitlines() if not line.startswith("["))


def test_format_is_pgn_like() -> None:
    rec = random_game("abapa(holes=4,seeds=3)", 1, limit=6)
    text = dumps(rec)
    assert text.startswith('[Variant "abapa"]\n[Options "holes=4,seeds=3"]\n[Event "test"]\n')
    assert '[Result "*"]' in text
    assert text.rstrip().endswith("*")
    assert "1. " in text and "2. " in text


def test_start_position_result_and_comments() -> None:
    text = """
[Variant "abapa"]
[Position "abapa 0,0,0,1,0,2/1,0,3,0,0,0 20-21 S 100 -"]
[South "x"]
[Result "*"]

{ a comment
  over two lines } 101. f ; the rest of the line is a comment
102. A *
"""
    rec = loads(text)
    assert rec.start == "abapa 0,0,0,1,0,2/1,0,3,0,0,0 20-21 S 100 -"
    assert rec.moves == ["f", "A"]
    assert loads(dumps(rec)) == rec
    assert rec.tags == {"South": "x"}


@given(
    st.dictionaries(
        st.from_regex(r"[A-Z][a-zA-Z0-9_]{0,10}", fullmatch=True).filter(
            lambda k: k not in ("Variant", "Options", "Position", "Result")
        ),
        st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]), max_size=30),
        max_size=6,
    )
)
@settings(max_examples=60, deadline=None)
def test_any_tag_values_round_trip(tags: dict[str, str]) -> None:
    rec = GameRecord("abapa", ["c", "A"], None, "*", tags)
    back = loads(dumps(rec))
    assert back.tags == tags and back.moves == ["c", "A"]


@pytest.mark.parametrize(
    ("text", "line", "field", "words"),
    [
        ('[Event "x"]\n\n1. c', None, "Variant", "Variant tag is missing"),
        ('[Variant "nope"]\n', 1, "Variant", "nope"),
        ('[Variant "abapa"]\n[Options "holes=99"]\n', 2, "Options", "holes"),
        ('[Variant "abapa(holes=4)"]\n[Options "seeds=3"]\n', 2, "Options", "both"),
        ('[Variant "abapa"]\n[Event unquoted]\n', 2, "tags", "malformed tag"),
        ('[Variant "abapa"]\n[Event "a"]\n[Event "b"]\n', 3, "Event", "twice"),
        ('[Variant "abapa"]\n[Result "2-0"]\n', 2, "Result", "not one of"),
        ('[Variant "abapa"]\n[Position "awale 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"]\n', 2, "Position", "awale"),
        ('[Variant "abapa"]\n[Position "abapa 9,9"]\n', 2, "Position", ""),
        ('[Variant "abapa"]\n\n1. c 2. A\n3. c\n', 4, "move 3", "empty"),
        ('[Variant "abapa"]\n\n1. c 3. f\n', 3, "move 2", "move number 3 where turn 2"),
        ('[Variant "abapa"]\n\n1. c 2. zz\n', 3, "move 2", "zz"),
        ('[Variant "abapa"]\n\n1. c * 2. f\n', 3, "movetext", "after the result"),
        ('[Variant "abapa"]\n[Result "1-0"]\n\n1. c 0-1\n', 4, "Result", "Result tag says 1-0"),
        ('[Variant "abapa"]\n\n1. c { never closed\n', 3, "movetext", "never closed"),
    ],
)
def test_errors_name_line_and_field(text: str, line: int | None, field: str, words: str) -> None:
    with pytest.raises(RecordError) as info:
        loads(text)
    e = info.value
    assert (e.line, e.field) == (line, field), str(e)
    assert words in str(e)
    assert isinstance(e, griot.GriotError)
    if line:
        assert str(e).startswith(f"line {line}, field {field}: ")


def test_a_finished_game_contradicting_its_result() -> None:
    rec = random_game("abapa", 5, limit=1000)
    assert rec.result in ("1-0", "0-1", "1/2-1/2")
    wrong = {"1-0": "0-1", "0-1": "1-0", "1/2-1/2": "1-0"}[rec.result]
    text = dumps(rec).replace(f'[Result "{rec.result}"]', f'[Result "{wrong}"]').rstrip()
    text = text[: text.rfind(" ")] + f" {wrong}\n" if not text.endswith("\n" + rec.result) else text
    with pytest.raises(RecordError, match="but the record says"):
        loads(text.replace(f" {rec.result}\n", f" {wrong}\n"))


def test_load_and_dump_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from griot.record import dump

    rec = random_game("awale", 2)
    dump(rec, tmp_path / "g.griot")
    assert load(tmp_path / "g.griot") == rec
