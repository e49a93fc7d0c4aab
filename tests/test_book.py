"""Opening books: the file, the build's minimax, and the engine's surfaces answering from a book
(``griot.search(book=)``, ``griot uci --book``, a match's ``book=``)."""

from __future__ import annotations

import io
from pathlib import Path

import griot
import pytest
from click.testing import CliRunner
from griot import book as books
from griot.cli import main
from griot.match import EngineSpec, GriotPlayer, MatchError
from griot.uci import UciEngine

pytestmark = pytest.mark.timeout(60)

ABAPA = griot.Variant("abapa")
START = ABAPA.start()


def _forged(tmp_path: Path) -> tuple[Path, str]:
    """A book whose start move is the one a search likes least: answered from the book, the
    engine plays it; searched, it would not."""
    r = griot.search(START, depth=4, multipv=0)
    worst = r.moves[-1].move
    assert worst != str(r.best_move)
    book = books.Book("abapa", 4, 1)
    book.entries[str(START)] = books.BookEntry(str(START), worst, -321, 4, 0)
    path = tmp_path / "forged.book"
    book.write(path)
    return path, worst


def test_a_book_file_reads_back_and_bad_ones_are_refused(tmp_path: Path) -> None:
    built = books.build("abapa", 1, 3, books.local_evaluator())
    built.write(tmp_path / "b.book")
    again = books.Book.load(tmp_path / "b.book")
    assert again == built and again.dumps() == built.dumps() and len(again) == 7
    header = built.dumps().splitlines()[0]
    bad = {
        "": "empty",
        '{"book": 9}\n': "not a Griot book",
        header + '\n{"position": "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", "best": "Z"}\n': "book",
        header + '\n{"position": "awale 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -", "best": "a", "value": 0, '
        '"depth": 1, "ply": 0}\n': "not abapa",
        "not json\n": "JSONDecodeError",
    }
    for text, message in bad.items():
        with pytest.raises(books.BookError, match=message):
            books.Book.loads(text)


def test_the_build_backs_up_the_leaves_values_by_minimax() -> None:
    book = books.build("abapa", 2, 3, books.local_evaluator())
    assert len(book) == 1 + 6 + 36 and book.plies == 2 and book.depth == 3
    for m in START.legal_moves():
        child = START.play(m)
        entry = book.probe(child)
        assert entry is not None and entry.ply == 1 and entry.depth == 4
        grand = [book.probe(child.play(g)) for g in child.legal_moves()]
        best = max(
            books.backed_up(child, child.play(g), e.value)
            for g, e in zip(child.legal_moves(), grand, strict=True)
            if e
        )
        assert entry.value == best
    # A proven loss of the child's mover is the parent's win, one turn further away.
    after = START.play("a")
    assert books.backed_up(START, after, -(griot.WIN - 3)) == griot.WIN - 4
    assert books.backed_up(START, after, 250) == -250
    # A leaf is the search's own answer.
    leaf = START.play("a").play("A")
    found = book.probe(leaf)
    assert found is not None and found.ply == 2
    r = griot.search(leaf, depth=3, hash_mb=books.BUILD_HASH_MB)
    assert (found.best, found.value) == (str(r.best_move), r.score.value)
    # Only the best moves by a shallower search are expanded with a width.
    narrow = books.build("abapa", 2, 3, books.local_evaluator(), width=2)
    assert len(narrow) == 1 + 2 + 4
    with pytest.raises(books.BookError):
        books.build("abapa", 0, 3, books.local_evaluator())


def test_the_search_answers_a_booked_position_from_the_book(tmp_path: Path) -> None:
    path, worst = _forged(tmp_path)
    book = books.Book.load(path)
    r = griot.search(START, depth=4, book=book)
    assert isinstance(r, books.BookResult) and r.from_book
    assert str(r.best_move) == worst and r.score.value == -321 and r.depth == 4
    out = griot.search(START.play("a"), depth=2, book=book)
    assert isinstance(out, griot.SearchResult) and out.nodes > 0


def test_uci_and_a_match_engine_play_the_book_move(tmp_path: Path) -> None:
    path, worst = _forged(tmp_path)
    out = io.StringIO()
    engine = UciEngine(out, book=str(path))
    for line in ("position startpos", "go depth 4", "isready"):
        engine.handle(line)
    engine.run(io.StringIO(""))
    lines = out.getvalue().splitlines()
    assert f"bestmove {worst.swapcase()}" in lines
    assert any(line.startswith("info depth 4") and line.endswith("string book") for line in lines)
    # Dropped, the engine searches again (and prefers another move).
    engine = UciEngine(out := io.StringIO(), book=str(path))
    engine.handle("setoption name Book value <empty>")
    engine.handle("go depth 4")
    engine.run(io.StringIO(""))
    assert f"bestmove {worst.swapcase()}" not in out.getvalue()
    engine.handle(f"setoption name Book value {tmp_path / 'missing.book'}")
    assert "info string error: book:" in out.getvalue()
    # The command's option, and a match engine's.
    result = CliRunner().invoke(main, ["uci", "--book", str(path)], input="go depth 4\nquit\n")
    assert result.exit_code == 0 and f"bestmove {worst.swapcase()}" in result.output
    player = GriotPlayer(EngineSpec.parse(f"griot;depth=4;book={path}"))
    assert player.choose([START], []) == worst
    assert GriotPlayer(EngineSpec.parse("griot;depth=4")).choose([START], []) != worst
    with pytest.raises(MatchError):
        GriotPlayer(EngineSpec.parse(f"griot;depth=4;book={tmp_path / 'missing.book'}"))
    assert EngineSpec.parse(EngineSpec.parse(f"griot;time=0.25;book={path};name=x").text) == EngineSpec.parse(
        f"griot;time=0.25;book={path};name=x"
    )


def test_the_book_commands_build_and_probe(tmp_path: Path) -> None:
    target = tmp_path / "a.book"
    built = CliRunner().invoke(
        main, ["book", "build", "abapa", "--plies", "1", "--depth", "2", "-o", str(target)]
    )
    assert built.exit_code == 0, built.output
    assert "7 positions in" in built.output
    entry = books.Book.load(target).probe(START)
    assert entry is not None
    probe = CliRunner().invoke(main, ["book", "probe", str(START), "--book", str(target)])
    assert probe.exit_code == 0 and probe.output.startswith(f"{entry.best} ")
    missing = CliRunner().invoke(
        main, ["book", "probe", str(START.play("a").play("A")), "--book", str(target)]
    )
    assert missing.output.strip() == "not in the book"
