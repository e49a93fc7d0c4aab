"""`griot play`: driven through stdin and through a real pseudo-terminal."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import griot
from griot import opponent
from griot.book import Book, BookEntry
from griot.record import load

from tests.history_cycle import CYCLE, CYCLE_START, played


def play(args: list[str], stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    env.update({"GRIOT_STATE_FILE": str(cwd / "none.json"), "COLUMNS": "200"})
    return subprocess.run(
        [sys.executable, "-m", "griot.cli", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=60,
        check=False,
    )


def test_a_game_through_stdin_with_undo_hint_eval_save_and_load(tmp_path: Path) -> None:
    script = (
        "\n".join(
            [
                "moves",
                "c",
                "zz",
                "A",
                "hint",
                "eval",
                "d",
                "undo",
                "save game.griot",
                "load game.griot",
                "quit",
            ]
        )
        + "\n"
    )
    result = play(["abapa", "--level", "2", "--seed", "7"], script, tmp_path)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert "opponent: Griot engine, level 2" in out
    assert "your moves: a b c d e f" in out
    assert "North plays " in out
    assert "zz" in out and ("error" in out.lower() or "not" in out.lower())
    assert "hint: " in out and "evaluation: South" in out
    assert "took back 2 moves" in out
    rec = load(tmp_path / "game.griot")
    assert rec.variant == "abapa" and rec.tags["North"].startswith("Griot engine")
    # c, reply, (zz and A are refused), d, reply; undo -> back to after c and its reply
    assert len(rec.moves) == 2 and rec.moves[0] == "c"
    assert "loaded game.griot: abapa, 2 moves" in out


def test_resume_a_record_and_play_north(tmp_path: Path) -> None:
    (tmp_path / "g.griot").write_text('[Variant "awale"]\n\n1. c\n')
    result = play(["--load", "g.griot", "--side", "N", "--seed", "1"], "A\nsave out.griot\nq\n", tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    rec = load(tmp_path / "out.griot")
    assert rec.moves[:2] == ["c", "A"] and len(rec.moves) == 3  # and South's (the opponent's) reply


def test_through_a_pseudo_terminal(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRIOT_")}
    env.update({"GRIOT_STATE_FILE": str(tmp_path / "none.json"), "COLUMNS": "100", "TERM": "xterm"})
    main, secondary = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "griot.cli", "play", "oware", "--seed", "3", "--level", "1"],
        stdin=secondary,
        stdout=secondary,
        stderr=secondary,
        cwd=tmp_path,
        env=env,
        close_fds=True,
    )
    os.close(secondary)
    seen = b""

    def read_until(marker: bytes, timeout: float = 30) -> None:
        nonlocal seen
        deadline = time.monotonic() + timeout
        while marker not in seen:
            assert time.monotonic() < deadline, seen.decode(errors="replace")[-2000:]
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(main, 65536)
                except OSError:
                    break

    try:
        read_until(b"> ")
        assert b"\x1b[" in seen  # a terminal gets colours
        seen = b""
        os.write(main, b"a\n")
        read_until(b"> ")
        assert b"South plays" not in seen and b"North plays" in seen
        os.write(main, b"quit\n")
        read_until(b"bye")
        assert proc.wait(10) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)


def test_choose_move_interface() -> None:
    pos = griot.Variant("abapa").start()
    assert pos.is_legal(opponent.choose_move(pos, 3))
    engine = opponent.local_opponent(seed=1)
    assert isinstance(engine, opponent.EngineOpponent)
    # A capture is worth taking: South's f sows into North's A..C, making a 2 or 3 there.
    capture = griot.Position("abapa 0,0,0,0,0,3/1,2,0,0,0,0 20-22 S 100 -")
    assert engine.choose_move(capture, 5).text == "f"
    assert "best f" in engine.evaluate(capture, seconds=0.2)


def test_the_engine_plays_from_a_book_built_here(tmp_path: Path) -> None:
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "griot.cli",
            "book",
            "build",
            "abapa",
            "--plies",
            "2",
            "--depth",
            "4",
            "-o",
            "tiny.book",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    tiny = Book.load(tmp_path / "tiny.book")
    start = griot.Variant("abapa").start()
    after_c = start.play(start.parse_move("c"))
    reply = tiny.probe(after_c)
    opening = tiny.probe(start)
    assert reply is not None and opening is not None
    # South: c (the book answers), then a move that leaves the book's two turns (searched).
    after_reply = after_c.play(after_c.parse_move(reply.best))
    second = after_reply.legal_moves()[0].text
    script = f"hint\nc\n{second}\nsave game.griot\nquit\n"
    result = play(["abapa", "--book", "tiny.book", "--level", "1", "--seed", "2"], script, tmp_path)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert f"opening book tiny.book ({len(tiny)} positions)" in out
    assert f"hint: {opening.best}  (book)" in out
    assert f"North plays {reply.best} (book)" in out
    assert out.count("(book)") == 2  # the hint and North's first reply; its second is searched
    assert out.count("North plays ") == 2
    rec = load(tmp_path / "game.griot")
    assert rec.moves[:3] == ["c", reply.best, second] and len(rec.moves) == 4


def test_the_book_is_left_once_the_game_repeats_a_position(tmp_path: Path) -> None:
    # Two lone seeds chase each other round the board; the book holds every position where North
    # moves over two laps (the turn count is part of a book's positions). The first lap is
    # played from the book; from the position's return the search decides.
    line = played(CYCLE * 2)
    north = [(ply, p) for ply, p in enumerate(line) if p.side_to_move == "N"]
    entries = {str(p): BookEntry(str(p), p.legal_moves()[0].text, 0, 1, ply) for ply, p in north}
    Book("awale", 1, len(line), entries=entries).write(tmp_path / "cycle.book")
    south = CYCLE[0::2] * 2
    script = "\n".join([*south, "save cycle.griot", "quit"]) + "\n"
    args = ["--position", CYCLE_START, "awale", "--book", "cycle.book", "--level", "1", "--seed", "1"]
    result = play(args, script, tmp_path)
    out = result.stdout
    assert result.returncode == 0, out + result.stderr
    assert out.count("North plays ") == 12
    assert out.count("(book)") == 6
    book_lines = [n for n, text in enumerate(out.splitlines()) if "North plays" in text and "(book)" in text]
    searched = [
        n for n, text in enumerate(out.splitlines()) if "North plays" in text and "(book)" not in text
    ]
    assert max(book_lines) < min(searched)
    assert load(tmp_path / "cycle.griot").moves == CYCLE * 2


def test_a_book_of_another_variant_is_refused(tmp_path: Path) -> None:
    Book("abapa", 1, 1).write(tmp_path / "abapa.book")
    result = play(["awale", "--book", "abapa.book"], "quit\n", tmp_path)
    assert result.returncode == 2
    assert "abapa.book is a book of abapa, not awale" in result.stderr
    (tmp_path / "junk.book").write_text("not a book\n")
    result = play(["abapa", "--book", "junk.book"], "quit\n", tmp_path)
    assert result.returncode == 2 and "--book" in result.stderr
