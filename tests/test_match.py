"""`griot match`: engines play each other under Griot's rules, through the engine protocol too."""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path

import griot
import pytest
from click.testing import CliRunner
from griot import egdb
from griot.cli import main
from griot.match import (
    EngineSpec,
    GameResult,
    GriotPlayer,
    MatchError,
    MatchStats,
    Sprt,
    elo,
    openings,
    play_game,
    run_match,
)
from griot.record import load

ABAPA = griot.Variant("abapa")
GRIOT_UCI = f"uci:{sys.executable} -m griot.cli uci"


def replay(result: GameResult) -> griot.Position:
    pos = ABAPA.start()
    for m in result.moves:
        pos = pos.play(m)
    return pos


def test_specs_parse_and_refuse_what_cannot_play() -> None:
    spec = EngineSpec.parse("griot;time=0.1;eval=material;hash=32;name=old")
    assert (spec.command, spec.time, spec.eval, spec.hash_mb, spec.label) == (
        None,
        0.1,
        "material",
        32,
        "old",
    )
    assert EngineSpec.parse("griot;time=0.2;timing=search").timing == "search"
    full = EngineSpec.parse("griot;depth=3;reductions=off")
    assert not full.reductions and EngineSpec.parse(full.text) == full and "reductions=off" in full.label
    assert EngineSpec.parse("griot;depth=3").reductions
    ext = EngineSpec.parse("uci:java -jar 'My Engine.jar';depth=8")
    assert ext.command == ("java", "-jar", "My Engine.jar") and ext.depth == 8
    for bad in (
        "stockfish;depth=3",
        "griot",
        "griot;depth=x",
        "griot;colour=red",
        "uci:;depth=2",
        "griot;depth=3;reductions=maybe",
        "uci:x;depth=3;reductions=off",
    ):
        with pytest.raises(MatchError):
            EngineSpec.parse(bad)


def test_the_engine_in_process_searches_with_the_endgame_databases_it_is_given(tmp_path: Path) -> None:
    # Two seeds a hole on three: every position of the game is in levels 0-12.
    variant = griot.Variant("abapa(holes=3,seeds=2)")
    egdb.build(variant.canonical, 12, tmp_path)
    db = egdb.open_databases(variant.canonical, tmp_path)
    on, off = EngineSpec.parse(f"griot;depth=1;egdb={tmp_path}"), EngineSpec.parse("griot;depth=1")
    assert EngineSpec.parse(on.text) == on and on.label == "griot (depth=1, egdb)"
    assert run_match(variant, on, off, games=2, plies=1, seed=2).stats.games == 2
    # Positions of random play where the databases change the depth-1 search's choice (few: most
    # positions of this board are valued by a cycle, where the search does not stop).
    rng, found = random.Random(7), []
    pos = variant.start()
    for _ in range(20_000):
        if pos.is_over or not pos.legal_moves():
            pos = variant.start()
        given, bare = griot.search(pos, depth=1, egdb=db).best_move, griot.search(pos, depth=1).best_move
        if given != bare:
            found.append((pos, str(given), str(bare)))
            if len(found) == 3:
                break
        pos = pos.play(rng.choice(pos.legal_moves()))
    assert len(found) == 3
    for pos, given, bare in found:
        assert (GriotPlayer(on).choose([pos], []), GriotPlayer(off).choose([pos], [])) == (given, bare)
    with pytest.raises(MatchError, match="no endgame databases"):
        GriotPlayer(EngineSpec.parse(f"griot;depth=1;egdb={tmp_path / 'none'}")).choose([variant.start()], [])
    with pytest.raises(MatchError, match="egdb= is Griot's own"):
        EngineSpec.parse(f"uci:x;depth=1;egdb={tmp_path}")


def test_openings_are_seeded_and_leave_a_game_to_play() -> None:
    first = [o for o, _ in zip(openings(ABAPA, 6, seed=3), range(5), strict=False)]
    again = [o for o, _ in zip(openings(ABAPA, 6, seed=3), range(5), strict=False)]
    assert first == again and len({tuple(o) for o in first}) > 1
    for moves in first:
        pos = ABAPA.start()
        for m in moves:
            pos = pos.play(m)
        assert len(moves) == 6 and not pos.is_over


def test_a_match_plays_each_opening_with_both_colours_to_the_rules_end() -> None:
    a, b = EngineSpec.parse("griot;depth=3"), EngineSpec.parse("griot;depth=1")
    result = run_match(ABAPA, a, b, games=4, plies=2, seed=5)
    assert result.stats.games == 4 and len(result.games) == 4
    assert [g.a_is_south for g in result.games] == [True, False, True, False]
    assert result.games[0].opening == result.games[1].opening != result.games[2].opening
    for g in result.games:
        final = replay(g)
        assert g.moves[: len(g.opening)] == g.opening
        if g.reason == "repetition":
            points = final.endless_outcome().winner
        else:
            assert final.outcome is not None and final.outcome.reason == g.reason
            points = final.outcome.winner
        assert g.south_points == {"S": 1.0, "N": 0.0, None: 0.5}[points]
    assert result.stats.points == [g.a_points for g in result.games]
    # Depth and node limits make the engines deterministic: the same match again is the same match.
    assert [g.moves for g in run_match(ABAPA, a, b, games=4, plies=2, seed=5).games] == [
        g.moves for g in result.games
    ]


@pytest.mark.parametrize("limit", ["depth=4", "nodes=3000"])
def test_the_engine_protocol_plays_the_same_game_as_the_engine_in_process(limit: str) -> None:
    # griot uci against the in-process engine at the same depth or node count (sent as `go depth`
    # or `go nodes`): both see the same history, and each starts every game afresh (one engine
    # process kept from game to game, told ucinewgame), so each opening's two games (colours
    # swapped) are the same moves.
    uci = EngineSpec.parse(f"{GRIOT_UCI};{limit}")
    result = run_match(ABAPA, uci, EngineSpec.parse(f"griot;{limit}"), games=4, plies=3)
    for first, second in (result.games[0:2], result.games[2:4]):
        assert first.opening == second.opening
        assert first.moves == second.moves
        assert first.south_points == second.south_points
        assert first.a_points + second.a_points == 1.0


class Illegal:
    """An engine that answers with a move the rules refuse."""

    def choose(self, positions: list[griot.Position], moves: list[str]) -> str:
        legal = {str(m) for m in positions[-1].legal_moves()}
        return next(label for label in "abcdefABCDEF" if label not in legal)

    def close(self) -> None:
        pass


class Griot:
    def choose(self, positions: list[griot.Position], moves: list[str]) -> str:
        return str(positions[-1].legal_moves()[0])

    def close(self) -> None:
        pass


def test_an_illegal_answer_forfeits_the_game() -> None:
    result = play_game(ABAPA, ["a"], Griot(), Illegal(), a_is_south=True)
    assert result.south_points == 1.0 and result.reason.startswith("N forfeits")
    assert result.moves == ["a"]


def test_stats_and_sprt() -> None:
    assert elo(0.5) == 0.0 and elo(0.75) == pytest.approx(190.85, abs=0.01) and elo(1.0) == math.inf
    stats = MatchStats([1.0, 0.5, 0.0, 1.0])
    assert stats.wdl == (2, 1, 1) and stats.score == 0.625
    low, high = stats.interval
    assert 0.0 < low < 0.625 < high < 1.0
    test = Sprt(0, 10)
    lower, upper = test.bounds
    assert lower == pytest.approx(-2.944, abs=1e-3) and upper == pytest.approx(2.944, abs=1e-3)
    assert test.verdict([1.0, 0.0] * 10) is None  # an even score over few games decides nothing
    wide = Sprt(0, 200)
    assert wide.llr([1.0] * 6) > wide.bounds[1]  # six wins pass the bound of a wide test ...
    assert wide.verdict([1.0] * 6) is None  # ... and decide nothing before min_games
    assert wide.verdict([1.0] * wide.min_games) == "H1"
    assert test.verdict([1.0, 1.0, 0.5, 1.0] * 50) == "H1"
    assert test.verdict([0.0, 0.5, 0.0, 0.5] * 50) == "H0"
    assert test.llr([1.0, 1.0, 0.5, 1.0] * 10) > 0 > test.llr([0.0, 0.5] * 10)


def test_an_sprt_stops_a_lopsided_match_early() -> None:
    strong, weak = EngineSpec.parse("griot;depth=5"), EngineSpec.parse("griot;depth=1")
    result = run_match(ABAPA, strong, weak, games=200, plies=2, sprt=Sprt(0, 200, 0.2, 0.2))
    assert result.verdict is not None and result.stats.games < 200 and result.stats.games % 2 == 0


def test_the_command_prints_the_score_and_writes_records(tmp_path: Path) -> None:
    out = CliRunner().invoke(
        main,
        [
            "match",
            "griot;depth=2;name=two",
            "griot;depth=1;name=one",
            "--games",
            "2",
            "--records",
            str(tmp_path),
        ],
    )
    assert out.exit_code == 0, out.output
    assert "A = two, B = one" in out.output and out.output.splitlines()[-1].startswith("A: score ")
    records = sorted(tmp_path.glob("*.griot"))
    assert len(records) == 2
    first = load(records[0])
    assert (
        first.tags["South"] == "two"
        and first.tags["North"] == "one"
        and first.result in ("1-0", "0-1", "1/2-1/2")
    )
    bad = CliRunner().invoke(main, ["match", "griot", "griot;depth=1"])
    assert bad.exit_code == 2 and "time=, depth= or nodes=" in bad.output


def test_the_command_prints_the_sprt_verdict_with_its_bounds() -> None:
    out = CliRunner().invoke(
        main, ["match", "griot;depth=5", "griot;depth=1", "--games", "100", "--plies", "2", "--sprt", "0,200"]
    )
    assert out.exit_code == 0, out.output
    last = out.output.splitlines()[-1]
    assert last.startswith("SPRT [0, 200]: LLR ") and ", bounds -2.94 and 2.94: " in last, last
    llr = float(last.split("LLR ")[1].split(",")[0])
    assert llr >= 2.94 and last.endswith("H1 accepted: A is nearer +200 than +0 Elo"), last


class Script:
    """Plays the moves of a fixed game, whichever side it is on."""

    def __init__(self, moves: list[str]) -> None:
        self.moves = moves

    def choose(self, positions: list[griot.Position], moves: list[str]) -> str:
        return self.moves[len(moves)]

    def close(self) -> None:
        pass


@pytest.mark.parametrize("repetitions, length", [(3, 11), (2, 7)])
def test_a_repeated_position_ends_the_game_whatever_the_turn_count(repetitions: int, length: int) -> None:
    # On a 2x2 board with a seed a hole, after South's first capture b B a A comes back to the same
    # position every four turns (0,1/1,0 2-0 N after turns 3, 7 and 11): the positions differ in
    # their turn counts, not in board, stores or side to move.
    tiny = griot.Variant("abapa(holes=2,seeds=1)")
    script = Script(["b", "B", "a", "A"] * 4)
    result = play_game(tiny, [], script, script, repetitions=repetitions)
    assert result.reason == "repetition" and len(result.moves) == length
    final = tiny.start()
    for m in result.moves:
        final = final.play(m)
    assert str(final).split(" ", 1)[1].startswith("0,1/1,0 2-0 N")
    # the endless cycle's rule: each player takes their own row, so South has 3 against 1
    assert final.endless_outcome().winner == "S" and result.south_points == 1.0


@pytest.mark.parametrize(
    ("engine", "named"),
    [("griot;depth=x", "depth='x' is not a whole number"), ("griot;time=-1", "time='-1' must be")],
)
def test_a_bad_setting_gets_one_line_naming_it(engine: str, named: str) -> None:
    out = CliRunner().invoke(main, ["match", engine, "griot;depth=1", "--games", "1"])
    lines = [line for line in out.output.splitlines() if line.strip()]
    assert out.exit_code == 2 and len(lines) == 1, out.output
    assert named in lines[0] and "invalid literal" not in lines[0], lines
