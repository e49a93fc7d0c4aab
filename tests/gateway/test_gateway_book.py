"""Opening books in the gateway (a real gateway over real workers and Redis): ``BestMove`` at full
strength plays a booked position's move from the book, says so, and searches elsewhere; an
unreadable book stops the gateway at start with the book's own message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import griot
import pytest
from gateway_stack import Gateway, Stack
from griot.book import Book, BookEntry
from griot.client import AnalysisClient

START = griot.Variant("abapa").start()


@pytest.fixture
def booked(stack: Stack, tmp_path: Path) -> Iterator[tuple[Gateway, str]]:
    """A gateway with a one-position book whose move at the start is not the search's choice (so
    that only the book can have chosen it)."""
    searched = str(griot.search(START, depth=8).best_move)
    planted = next(str(m) for m in START.legal_moves() if str(m) != searched)
    book = Book("abapa", depth=5, plies=1, entries={str(START): BookEntry(str(START), planted, -37, 5, 0)})
    path = tmp_path / "abapa.book"
    book.write(path)
    g = Gateway(stack, ["--books", str(path)]).start()
    try:
        yield g, planted
    finally:
        g.stop()


def test_best_move_at_full_strength_plays_from_the_book(booked: tuple[Gateway, str]) -> None:
    g, planted = booked
    with AnalysisClient(g.target) as client:
        r = client.best_move(str(START), level=10, timeout=60)
        assert (r.move, r.book, r.depth, r.score.centi) == (planted, True, 5, -37)
        # A weaker level chooses by its own search; out of the book, full strength searches too.
        assert not client.best_move(str(START), level=5, seed=1, timeout=60).book
        after = client.best_move(str(START.play(planted)), level=9, timeout=60)
        assert not after.book and after.depth > 0


def test_an_unreadable_book_stops_the_gateway_at_start(stack: Stack, tmp_path: Path) -> None:
    bad = tmp_path / "bad.book"
    bad.write_text('{"book": 1, "variant": "abapa", "depth": 5, "plies": 1}\n{"position": "abapa 9"}\n')
    with pytest.raises(RuntimeError, match="opening book") as started:
        Gateway(stack, ["--books", str(bad)]).start()
    assert str(bad) in str(started.value)
