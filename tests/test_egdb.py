"""Endgame databases from Python: the engine's levels against the independent solver
(tests/reference/egdb.py), the CLI's build, resume and probe, refusal of damaged files, and the
search reading exact results."""

from __future__ import annotations

import random
import re
from pathlib import Path

import griot
import pytest
from click.testing import CliRunner
from griot import egdb
from griot.cli import main

from tests.reference import egdb as reference

# Every test here ends within 240 s or fails on its own (pytest-timeout).
pytestmark = pytest.mark.timeout(240)


def _text(variant: str, board: tuple[int, ...], side: str) -> str:
    n = len(board) // 2
    return f"{variant} {','.join(map(str, board[:n]))}/{','.join(map(str, board[n:]))} 0-0 {side} 1 -"


@pytest.mark.parametrize(
    ("variant", "positions"),
    # Boards of 0..6 seeds on 12 (8) holes, C(6 + 12, 12) (C(6 + 8, 8)), times two sides.
    [("abapa", 2 * 18564), ("leb-bbut-ahbochen(holes=4)", 2 * 3003)],
)
def test_every_position_up_to_six_seeds_equals_the_independent_solver(
    variant: str, positions: int, tmp_path: Path
) -> None:
    egdb.build(variant, 6, tmp_path)
    db = egdb.open_databases(variant, tmp_path)
    assert db.max_seeds == 6
    cycles: set[tuple[tuple[int, ...], str]] = set()
    want = reference.solve(variant, 6, cycles)
    decided = 0
    for (board, side), margin in want.items():
        position = griot.Position(_text(variant, board, side))
        probe = db.probe(position)
        # Flagged exactly where the solver's two bounds differ, and then not claimed exact.
        cycle = (board, side) in cycles
        kind = "cycle" if cycle else "exact"
        assert (probe.kind, probe.margin, probe.cycle) == (kind, margin, cycle), (board, side)
        if cycle:
            assert egdb.exact(db, position) is None
            assert egdb.sentence(probe, position).endswith(egdb.UNLESS_REPETITION)
        decided += margin != 0
    assert cycles, "no position valued by a cycle"
    assert len(want) == positions
    # Not a table of draws: most positions with seeds are decided.
    assert decided > len(want) // 2, decided


def test_a_capture_into_a_position_valued_by_a_cycle_is_not_exact(tmp_path: Path) -> None:
    # South's best move captures into a lower position valued by a cycle; within its own level
    # the two bounds agree. Its value depends on that cycle: flagged, and not called exact.
    variant = "abapa(holes=3)"
    egdb.build(variant, 6, tmp_path)
    db = egdb.open_databases(variant, tmp_path)
    position = griot.Position(f"{variant} 2,1,1/1,1,0 9-9 S 11 -")
    children = [position.play(m) for m in position.legal_moves()]
    captures = [c for c in children if sum(c.cells) < 6]
    assert any(db.probe(c).kind == "cycle" for c in captures)
    cycles: set[tuple[tuple[int, ...], str]] = set()
    reference.solve(variant, 6, cycles)
    assert ((2, 1, 1, 1, 1, 0), "S") in cycles
    probe = db.probe(position)
    assert (probe.kind, probe.cycle) == ("cycle", True)
    assert egdb.exact(db, position) is None


def test_cli_builds_resumes_and_probes(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["egdb", "build", "abapa(holes=3)", "--seeds", "5", "--local", "--dir", str(tmp_path)]
    first = runner.invoke(main, args)
    assert first.exit_code == 0, first.output
    assert "level   5:" in first.output and "kept" not in first.output
    files = sorted((tmp_path / "abapa_holes_3_").iterdir())
    assert [f.name for f in files] == [f"{s:03}.egdb" for s in range(6)]
    before = {f.name: f.read_bytes() for f in files}
    # Again with one more level: the five are kept as they are, the sixth is built.
    again = runner.invoke(main, [*args[:4], "6", *args[5:]])
    assert again.exit_code == 0, again.output
    assert again.output.count("kept") == 6
    assert {f.name: f.read_bytes() for f in files} == before

    # South to move with one seed each side and South's seed next to North's row: South sows it
    # over, North must play it back... the engine's answer, as a sentence, matches the margin.
    position = "abapa(holes=3) 0,0,1/1,0,0 11-11 S 7 -"
    probe = egdb.open_databases("abapa(holes=3)", tmp_path).probe(griot.Position(position))
    assert probe.kind == "exact" and probe.margin is not None
    out = runner.invoke(main, ["egdb", "probe", position, "--dir", str(tmp_path)])
    assert out.exit_code == 0, out.output
    if probe.margin == 0:
        assert out.output.strip() == "draw with best play"
    else:
        winner = "South" if probe.margin > 0 else "North"
        assert out.output.strip() == f"{winner} wins by {abs(probe.margin)} with best play"
    moves = runner.invoke(main, ["egdb", "probe", position, "--moves", "--dir", str(tmp_path)])
    lines = moves.output.strip().splitlines()
    assert moves.exit_code == 0 and lines[0] == out.output.strip(), moves.output
    legal = griot.Position(position).legal_moves()
    assert sorted(line.split(":")[0].strip() for line in lines[1:]) == sorted(str(m) for m in legal)
    # The best move's result is the position's.
    assert _south_leads(lines[1]) == _south_leads(lines[0]), moves.output
    far = runner.invoke(
        main, ["egdb", "probe", "abapa(holes=3) 4,0,1/1,2,0 6-6 S 7 -", "--dir", str(tmp_path)]
    )
    assert far.exit_code == 0 and far.output.startswith("out of range:"), far.output


def test_damaged_and_unqualified_databases_are_refused(tmp_path: Path) -> None:
    egdb.build("awale(holes=2)", 4, tmp_path)
    level = tmp_path / "awale_holes_2_" / "003.egdb"
    data = bytearray(level.read_bytes())
    data[-1] ^= 0x40
    level.write_bytes(bytes(data))
    with pytest.raises(egdb.EgdbError, match="checksum"):
        egdb.open_databases("awale(holes=2)", tmp_path)
    out = CliRunner().invoke(
        main, ["egdb", "probe", "awale(holes=2) 1,0/0,1 10-4 S 3 -", "--dir", str(tmp_path)]
    )
    assert out.exit_code == 2 and "EgdbError" in out.output and "refused" in out.output
    with pytest.raises(egdb.EgdbError, match="captured last"):
        egdb.build("oware", 2, tmp_path)
    with pytest.raises(egdb.EgdbError, match="two-row sowing"):
        egdb.build("bechi", 2, tmp_path)
    with pytest.raises(egdb.EgdbError, match="match of rounds"):
        egdb.build("erherhe", 2, tmp_path)
    assert isinstance(egdb.EgdbError("x"), griot.GriotError)


def test_the_search_returns_exact_results_in_range(tmp_path: Path) -> None:
    egdb.build("abapa(holes=3)", 6, tmp_path)
    db = egdb.open_databases("abapa(holes=3)", tmp_path)
    # Every child's result exact (none valued by a cycle).
    position = griot.Position("abapa(holes=3) 1,2,0/2,0,1 9-9 S 11 -")
    plain = griot.search(position, depth=8)
    exact = griot.search(position, depth=8, egdb=db)
    assert exact.nodes < plain.nodes
    # The root's result is the best of its children's exact results.
    results = []
    for mv in position.legal_moves():
        child = position.play(mv)
        p = db.probe(child)
        assert p.kind == "exact"
        results.append(0 if p.winner is None else (1 if p.winner == "S" else -1))
    best = max(results)
    assert (exact.score.is_win, exact.score.is_loss) == (best == 1, best == -1)


@pytest.mark.parametrize(
    ("variant", "start", "value"),
    # The solved small boards published in docs/EGDB.md: South to move at the start. Both start
    # positions are valued by a cycle (a capture leads to play whose result the cycle rule
    # decides): the margin is the game's that shares endless play out where it starts.
    [("abapa(holes=2)", (4, 4, 4, 4), 0), ("leb-bbut-ahbochen(holes=2)", (4, 4, 4, 4), 0)],
)
def test_solved_small_boards_equal_the_independent_solver(
    variant: str, start: tuple[int, ...], value: int, tmp_path: Path
) -> None:
    egdb.build(variant, 16, tmp_path)
    db = egdb.open_databases(variant, tmp_path)
    cycles: set[tuple[tuple[int, ...], str]] = set()
    want = reference.solve(variant, 16, cycles)
    assert want[(start, "S")] == value
    assert (start, "S") in cycles
    for (board, side), margin in want.items():
        probe = db.probe(griot.Position(_text(variant, board, side)))
        kind = "cycle" if (board, side) in cycles else "exact"
        assert (probe.kind, probe.margin) == (kind, margin), (board, side)
    first = db.probe(griot.Position(f"{variant} 4,4/4,4 0-0 S 0 -"))
    assert (first.kind, first.margin) == ("cycle", value)


_RESULT = re.compile(r"(South|North) wins(?: by (\d+))?(?: to (\d+))?|(?:a )?draw")


def _south_leads(line: str) -> tuple[tuple[int, int], bool]:
    """A probe's sentence as South's final lead at the two bounds, and whether it names margins
    (else only the sign of each bound is meant)."""
    text = line.split(": ", 1)[1] if line.startswith("  ") else line
    assert not text.startswith("out of range"), line
    leads, margins = [], True
    for m in _RESULT.finditer(text.split(" with best play")[0].split(": the game is over")[0]):
        if m.group(0).endswith("draw"):
            leads.append(0)
            continue
        sign = 1 if m.group(1) == "South" else -1
        if m.group(2) is None:
            margins = False
            leads.append(sign)
        else:
            leads += [sign * int(m.group(2))] + ([sign * int(m.group(3))] if m.group(3) else [])
    assert len(leads) in (1, 2), line
    return (min(leads), max(leads)), margins


def test_the_verdict_and_the_moves_agree_over_many_positions(tmp_path: Path) -> None:
    # The verdict of `griot egdb probe --moves` is the best of its moves' results for the side to
    # move (at both bounds when repetitions decide), in margins where every line names them and
    # in winners otherwise: random Abapa positions of up to 6 seeds, stores shared at random (so
    # that the store threshold sometimes ends the game first), and the documented example.
    egdb.build("abapa", 6, tmp_path)
    rng = random.Random(7)
    texts = ["abapa 0,0,0,1,2,0/1,0,0,0,0,1 20-23 S 80 -"]
    while len(texts) < 150:
        seeds = rng.randint(1, 6)
        board = [0] * 12
        for _ in range(seeds):
            board[rng.randrange(12)] += 1
        south = rng.randint(0, 48 - seeds)
        if max(south, 48 - seeds - south) > 24:
            continue  # the game is over: nothing to probe
        side = rng.choice("SN")
        texts.append(f"abapa {','.join(map(str, board[:6]))}/{','.join(map(str, board[6:]))} "
                     f"{south}-{48 - seeds - south} {side} 9 -")  # fmt: skip
    kinds = set()
    for text in texts:
        pos = griot.Position(text)
        if pos.is_over:
            continue
        out = CliRunner().invoke(main, ["egdb", "probe", text, "--moves", "--dir", str(tmp_path)])
        assert out.exit_code == 0, out.output
        verdict, *moves = out.output.rstrip("\n").splitlines()
        assert len(moves) == len(pos.legal_moves()), out.output
        (lo, hi), margins = _south_leads(verdict)
        results = [_south_leads(line) for line in moves]
        best = max if pos.side_to_move == "S" else min
        want = best(r[0][0] for r in results), best(r[0][1] for r in results)
        if margins and all(r[1] for r in results):
            assert (lo, hi) == want, out.output
            # Best first for the side to move: the first move reaches the best upper bound.
            mover_high = [hi if pos.side_to_move == "S" else -lo for (lo, hi), _ in results]
            assert mover_high[0] == max(mover_high), out.output
            kinds.add("margins")
        else:
            sign = lambda x: (x > 0) - (x < 0)  # noqa: E731
            assert (sign(lo), sign(hi)) == (sign(want[0]), sign(want[1])), out.output
            kinds.add("winners")
        kinds.add("cycle" if egdb.UNLESS_REPETITION in verdict else "exact")
    assert kinds == {"margins", "winners", "cycle", "exact"}, kinds


def test_analyze_states_the_databases_result_and_its_search_agrees(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `griot analyze` prints the databases' line beside its search: where the databases are exact
    # the search proves the same result for the side to move; where repetitions decide, a result
    # the search proves lies between the line's bounds.
    egdb.build("abapa", 5, tmp_path)
    db = egdb.open_databases("abapa", tmp_path)
    monkeypatch.setenv("GRIOT_EGDB_DIR", str(tmp_path))
    rng = random.Random(11)
    seen = set()
    for _ in range(40):
        seeds = rng.randint(1, 5)
        board = [0] * 12
        for _ in range(seeds):
            board[rng.randrange(12)] += 1
        south = rng.randint(24 - seeds, 24)
        text = f"abapa {','.join(map(str, board[:6]))}/{','.join(map(str, board[6:]))} {south}-{48 - seeds - south} S 9 -"  # noqa: E501
        pos = griot.Position(text)
        if pos.is_over:
            continue
        out = CliRunner().invoke(main, ["analyze", text, "--depth", "6", "--gateway", "off"])
        assert out.exit_code == 0, out.output
        line = next(x for x in out.output.splitlines() if x.startswith("endgame database: "))
        (lo, hi), _ = _south_leads(line.removeprefix("endgame database: "))
        score = out.output.rsplit("score ", 1)[1].split("  pv")[0].strip()
        mover = {"win": 1, "loss": -1, "draw": 0}.get(score.split()[0])
        if mover is None:
            # A heuristic score: only where repetitions may decide (the search goes on there).
            assert db.probe(pos).cycle, out.output
            seen.add("heuristic")
            continue
        sign = lambda x: (x > 0) - (x < 0)  # noqa: E731
        assert sign(lo) <= mover <= sign(hi), out.output
        seen.add("exact" if lo == hi else "between")
    assert "exact" in seen, seen
