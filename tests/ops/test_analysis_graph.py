"""griot analyze-game: the report table, and the evaluation graph that marks every inaccuracy,
mistake and blunder of a real report."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import griot
import pytest
from click.testing import CliRunner
from griot.cli import main
from griot.cli_analysis import GRAPH_MARKS, graph_marks, local_report, write_graph
from griot.record import GameRecord
from griot.v1 import analysis_pb2


def random_record(variant: str, moves: int, seed: int) -> GameRecord:
    rng = random.Random(seed)
    pos = griot.Variant(variant).start()
    played: list[str] = []
    while len(played) < moves and pos.outcome is None:
        move = rng.choice(pos.legal_moves())
        played.append(str(move))
        pos = pos.play(move)
    return GameRecord(variant=variant, moves=played)


def test_graph_marks_every_bad_move_by_class(tmp_path: Path) -> None:
    report = local_report(random_record("abapa", 30, seed=7), depth=4, on_turn=lambda *_: None)
    marks = graph_marks(report)
    labels = {cls: label for cls, label, _ in GRAPH_MARKS}
    expected: dict[str, list[int]] = {}
    for t in report.turns:
        if t.classification in labels:
            expected.setdefault(labels[t.classification], []).append(t.turn + 1)
    # Random play makes bad moves of more than one class; every one of them is marked, nothing else is.
    assert len(expected) >= 2, [analysis_pb2.MoveClassification.Name(t.classification) for t in report.turns]
    assert {label: [x for x, _ in points] for label, (_, points) in marks.items()} == expected
    assert "inaccuracy" in marks or "mistake" in marks
    png = tmp_path / "g.png"
    write_graph(report, png, "test")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_report_speaks_in_seeds_and_says_whose_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "game.griot"
    record.write_text('[Variant "abapa"]\n\n1. c 2. D 3. b 4. E\n')
    monkeypatch.setenv("COLUMNS", "80")
    # Without matplotlib the graph is skipped with a hint naming the extra that brings it.
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    result = CliRunner().invoke(main, ["analyze-game", str(record), "--depth", "4", "--gateway", "off"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert "scores are the mover's, in seeds" in out
    assert "pip install 'griot-mancala[server]'" in out
    rows = [line.split() for line in out.splitlines() if line.split()[:1] in (["1"], ["2"], ["3"], ["4"])]
    assert [r[2] for r in rows] == ["c", "D", "b", "E"]
    for r in rows:
        played, best, loss = (float(x) for x in r[4:7])
        # the loss is in seeds like the scores beside it, not in hundredths
        assert loss == pytest.approx(max(best - played, 0.0), abs=0.011), r
    assert all(len(line) <= 80 for line in out.splitlines())
