"""The analyze-game evaluation graph marks every inaccuracy, mistake and blunder of a real report."""

from __future__ import annotations

import random
from pathlib import Path

import griot
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
