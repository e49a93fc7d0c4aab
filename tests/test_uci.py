"""`griot uci`: driven as an Oware GUI drives an engine, through a real subprocess's pipes."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
from collections.abc import Iterator

import griot
import pytest
from griot.uci import GoLimits, go_budget, go_clock, parse_go

#: How long any one answer may take before the test fails (a search here is a few plies deep).
ANSWER_S = 60.0


class Gui:
    """Writes commands to the engine and reads its answers line by line, each with a deadline."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "griot.cli", "uci", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, command: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()

    def next_line(self) -> str:
        line = self.lines.get(timeout=ANSWER_S)
        assert line is not None, "the engine closed its output"
        return line

    def until(self, prefix: str) -> list[str]:
        """Every line up to and including the first that starts with ``prefix``."""
        seen = []
        while True:
            line = self.next_line()
            seen.append(line)
            if line.startswith(prefix):
                return seen

    def close(self) -> int:
        if self.proc.poll() is None:
            self.send("quit")
        try:
            return self.proc.wait(timeout=ANSWER_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self._reader.join(timeout=ANSWER_S)
            for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    pipe.close()


@pytest.fixture
def gui() -> Iterator[Gui]:
    g = Gui()
    g.send("uci")
    g.until("uciok")
    yield g
    assert g.close() == 0


def infos(lines: list[str]) -> list[dict[str, str]]:
    """The ``info`` lines as word pairs (``score cp 40`` becomes ``score: cp 40``)."""
    out = []
    for line in lines:
        if not line.startswith("info depth"):
            continue
        words = line.split()[1:]
        fields: dict[str, str] = {}
        i = 0
        while i < len(words):
            if words[i] == "score":
                fields["score"] = f"{words[i + 1]} {words[i + 2]}"
                i += 3
            else:
                fields[words[i]] = words[i + 1]
                i += 2
        out.append(fields)
    return out


def griot_moves(dialect: str) -> list[str]:
    return [c.swapcase() for c in dialect]


def test_handshake_names_the_engine_and_its_options() -> None:
    g = Gui()
    g.send("uci")
    lines = g.until("uciok")
    assert lines[0].startswith("id name Griot ")
    assert any(line.startswith("option name Hash type spin") for line in lines)
    assert "option name Threads type spin default 1 min 1 max 64" in lines
    assert any(line == "option name Variant type string default abapa" for line in lines)
    g.send("isready")
    assert g.next_line() == "readyok"
    assert g.close() == 0


def test_go_depth_reports_each_iteration_and_plays_the_searchs_move(gui: Gui) -> None:
    gui.send("position startpos moves Af")
    gui.send("go depth 6")
    lines = gui.until("bestmove")
    reports = infos(lines)
    assert [int(r["depth"]) for r in reports] == [1, 2, 3, 4, 5, 6]
    for r in reports:
        kind, value = r["score"].split()
        assert kind in ("cp", "mate")
        int(value)
        assert all(c in "ABCDEFabcdef" for c in r["pv"])
    # Griot's own search of the same game (a then F played) at the same depth and table size, with
    # the late-move reductions griot uci plays with.
    start = griot.Variant("abapa").start()
    after = start.play("a").play("F")
    expected = griot.search(after, depth=6, hash_mb=64, history=[start, start.play("a")], reductions=True)
    best = lines[-1].split()
    assert best[1] == str(expected.best_move).swapcase()
    assert reports[-1]["pv"] == "".join(m.swapcase() for m in expected.pv)
    if len(expected.pv) > 1:
        assert best[2:] == ["ponder", expected.pv[1].swapcase()]


def test_go_infinite_answers_only_after_stop(gui: Gui) -> None:
    gui.send("position startpos")
    gui.send("go infinite")
    seen = []
    while not any(r for r in infos(seen) if int(r["depth"]) >= 4):
        seen.append(gui.next_line())
    assert not any(line.startswith("bestmove") for line in seen)
    gui.send("stop")
    answer = gui.until("bestmove")[-1].split()
    assert answer[1] in "ABCDEF"
    gui.send("isready")
    assert gui.until("readyok")[-1] == "readyok"


def test_ponder_then_ponderhit_answers_within_the_go_budget(gui: Gui) -> None:
    gui.send("position startpos moves C")
    gui.send("go ponder movetime 50")
    seen = []
    while not infos(seen):
        seen.append(gui.next_line())
    assert not any(line.startswith("bestmove") for line in seen)
    gui.send("ponderhit")
    answer = gui.until("bestmove")[-1].split()
    legal = {str(m).swapcase() for m in griot.Variant("abapa").start().play("c").legal_moves()}
    assert answer[1] in legal


def test_clock_and_movetime_searches_end_with_a_legal_move(gui: Gui) -> None:
    gui.send("position startpos moves AfB")
    legal = {
        str(m).swapcase() for m in griot.Variant("abapa").start().play("a").play("F").play("b").legal_moves()
    }
    for go in ("go movetime 100", "go wtime 3000 btime 3000 winc 10 binc 10", "go nodes 5000"):
        gui.send(go)
        assert gui.until("bestmove")[-1].split()[1] in legal


def test_fen_positions_map_holes_stores_and_side(gui: Gui) -> None:
    # South: only its sixth hole holds a seed; North: its first. North to move has one move.
    gui.send("position fen 0-0-0-0-0-1-1-0-0-0-0-0-23-23-N")
    gui.send("go depth 4")
    assert gui.until("bestmove")[-1] == "bestmove a"
    # South's F then gives North a 2 that would take North's last seeds: a grand slam takes
    # nothing, and North, unable to feed South, ends the game.
    gui.send("position fen 0-0-0-0-0-1-1-0-0-0-0-0-23-23-S moves F")
    gui.send("go depth 4")
    assert gui.until("bestmove")[-1] == "bestmove (none)"
    # The stores: the side ahead by four seeds sees a positive score, the side behind a negative.
    ahead = "abapa 0,0,0,0,3,0/1,0,0,0,0,0 24-20 S 0 -"
    legal = {str(m).swapcase() for m in griot.Position(ahead).play("e").legal_moves()}
    for stores, sign in (("24-20", -1), ("20-24", 1)):
        gui.send(f"position fen 0-0-0-0-3-0-1-0-0-0-0-0-{stores}-S moves E")
        gui.send("go depth 1")
        lines = gui.until("bestmove")
        assert lines[-1].split()[1] in legal
        kind, value = infos(lines)[-1]["score"].split()
        assert kind == "cp" and int(value) * sign > 0, (stores, value)


def test_bad_commands_are_reported_and_leave_the_position_as_it_was(gui: Gui) -> None:
    gui.send("position fen 0-0-0-0-0-1-1-0-0-0-0-0-23-23-N")
    for bad in (
        "position fen 1-2-3",
        "position startpos moves AZ",
        "position startpos moves AaA",
        "go depth x",
        "go sideways 3",
        "setoption name Variant value bechi",
        "setoption name Hash value 0",
        "frobnicate",
    ):
        gui.send(bad)
        line = gui.next_line()
        assert line.startswith("info string error: "), (bad, line)
    gui.send("go depth 2")
    assert gui.until("bestmove")[-1] == "bestmove a"


def test_another_variant_through_setoption(gui: Gui) -> None:
    gui.send("setoption name Variant value leb-bbut-ahbochen(holes=4)")
    gui.send("position startpos moves A")
    gui.send("go depth 3")
    answer = gui.until("bestmove")[-1].split()
    assert answer[1] in "abcd"


def test_repetitions_option_ends_the_game_at_the_first_repetition() -> None:
    # Two lone seeds chase each other: twelve moves bring the start back, its first repetition.
    g = Gui()
    g.send("uci")
    assert "option name Repetitions type spin default 3 min 2 max 3" in g.until("uciok")
    g.send("setoption name Repetitions value 4")
    assert g.next_line().startswith("info string error: ")
    for occurrence, over in (("2", True), ("3", False)):
        g.send(f"setoption name Repetitions value {occurrence}")
        g.send("position fen 0-0-0-0-0-1-0-0-0-0-0-1-20-26-S moves FfAaBbCcDdEe")
        g.send("go depth 2")
        answer = g.until("bestmove")[-1]
        assert (answer == "bestmove (none)") == over, (occurrence, answer)
    assert g.close() == 0


def test_threads_option_searches_with_auxiliaries(gui: Gui) -> None:
    gui.send("setoption name Threads value 0")
    assert gui.next_line().startswith("info string error: ")
    gui.send("setoption name Threads value 2")
    gui.send("position startpos moves A")
    gui.send("go depth 8")
    lines = gui.until("bestmove")
    assert infos(lines)[-1]["depth"] == "8"
    assert lines[-1].split()[1] in "abcdef"


def test_a_variant_the_protocol_cannot_speak_is_refused_on_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "griot.cli", "uci", "--variant", "sabouiyya"],
        input="",
        capture_output=True,
        text=True,
        timeout=ANSWER_S,
        check=False,
    )
    assert done.returncode == 2
    assert "two-row sowing games" in done.stderr


def test_go_arguments_and_the_time_budget() -> None:
    assert parse_go(["depth", "7", "movetime", "250"]) == GoLimits(depth=7, movetime=250)
    assert parse_go(["infinite"]).infinite
    with pytest.raises(ValueError, match="needs a value"):
        parse_go(["depth"])
    # movetime is used whole, less the overhead
    assert go_budget(GoLimits(movetime=1000), "S") == pytest.approx(0.97)
    # a clock: the remaining time shared over the moves to go, plus most of the increment
    clock = GoLimits(wtime=60_000, btime=30_000, winc=1000, binc=0, movestogo=10)
    assert go_budget(clock, "S") == pytest.approx((60 - 0.03) / 10 + 0.75)
    assert go_budget(clock, "N") == pytest.approx((30 - 0.03) / 10)
    # never more than half of what is left
    assert go_budget(GoLimits(wtime=1000, winc=5000), "S") == pytest.approx((1 - 0.03) / 2)
    assert go_budget(GoLimits(infinite=True, movetime=5), "S") is None
    assert go_budget(GoLimits(depth=5), "S") is None


def test_a_clock_goes_to_the_search_whole() -> None:
    # On a clock the search budgets the move itself (it may stop early and keep the time)
    clock = GoLimits(wtime=60_000, btime=30_000, winc=1000, binc=0, movestogo=10)
    assert go_clock(clock, "S") == pytest.approx((60 - 0.03, 1.0, 10))
    assert go_clock(clock, "N") == pytest.approx((30 - 0.03, 0.0, 10))
    assert go_clock(GoLimits(wtime=5, btime=5), "S") == (0.0, 0.0, None)
    # movetime, infinite and searches without a clock are not clock searches
    assert go_clock(GoLimits(wtime=1000, movetime=100), "S") is None
    assert go_clock(GoLimits(wtime=1000, infinite=True), "S") is None
    assert go_clock(GoLimits(depth=5), "S") is None
