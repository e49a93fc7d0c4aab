"""End to end in a real browser: the built demo board (python/griot/board) in Debian's headless
Chromium, driven by playwright-core (web/e2e/play.mjs), against the REAL stack on loopback (conftest.py's
``griot_stack``: what `griot up` starts, with one Celery worker and a shallow gateway): the page is
served by griot.services.web, which forwards to the rules service and to the analysis gateway, whose
searches run on the worker. Games are played by clicking cells the API's legal moves highlight;
after every turn the board must show what the API says the position holds. The board's geometry
(layout.mjs) is measured at a phone's and a desktop's width for every family. Screenshots: e2e/ under
$GRIOT_ARTIFACTS (default test-artifacts/, upstack.py).

Needs `make web-install web-build` (node modules, the built board), Chromium (`make tools`) and
redis-server: skipped with the reason when they are missing, failed instead when CI is set."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import griot
import httpx
import pytest
from upstack import ARTIFACTS as ARTIFACTS_ROOT
from upstack import GATEWAY_DEFAULT_DEPTH, GriotStack

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
DIST = Path(griot.__file__).resolve().parent / "board"
SCRIPT = WEB / "e2e" / "play.mjs"
NEWCOMER = WEB / "e2e" / "newcomer.mjs"
LAYOUT = WEB / "e2e" / "layout.mjs"
ARTIFACTS = ARTIFACTS_ROOT / "e2e"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

# One game in the browser may take up to 300 s (play.mjs's own bound), plus the stack's start.
pytestmark = pytest.mark.timeout(900)


def _missing() -> str | None:
    if shutil.which("node") is None:
        return "node is not installed"
    if not (WEB / "node_modules" / "playwright-core").is_dir():
        return "web/node_modules is missing: run `make web-install`"
    if not (DIST / "index.html").is_file():
        return "the demo board is not built: run `make web-build`"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM}: run `make tools` (apt-get install chromium)"
    if shutil.which("redis-server") is None:
        return "redis-server is not installed (`make test` installs it)"
    return None


@pytest.fixture(scope="module")
def online(griot_stack: GriotStack) -> str:
    """The web server of the real stack (rules and analysis forwarded, the demo board)."""
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"end-to-end prerequisites missing in CI: {reason}")
        pytest.skip(reason)
    return griot_stack.web


@pytest.fixture(scope="module")
def offline(online: str, griot_stack: GriotStack) -> Iterator[str]:
    """A second web server in front of the same rules service, without the analysis service."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with (ARTIFACTS / "web-offline.log").open("wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "griot.services.web", "--port", str(port), "--rules", griot_stack.rules,
             "--analysis", "off", "--static", str(DIST), "--log-format", "text"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                assert proc.poll() is None, (
                    f"griot.services.web exited with {proc.returncode}; see {log.name}"
                )
                try:
                    if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, f"{url} did not answer; see {log.name}"
                time.sleep(0.2)
            yield url
        finally:
            proc.terminate()
            proc.wait(10)


def _play(url: str, variant: str, *args: str, script: Path = SCRIPT) -> dict[str, Any]:
    return _node(script, "--url", url, "--variant", variant, *args)


def _node(script: Path, *args: str) -> dict[str, Any]:
    """Runs a browser script of web/e2e; its JSON summary (the last line it prints)."""
    proc = subprocess.run(
        ["node", str(script), "--out", str(ARTIFACTS), "--chromium", CHROMIUM, *args],
        cwd=WEB, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    lines = proc.stdout.strip().splitlines()
    summary: dict[str, Any] = json.loads(lines[-1]) if lines else {}
    assert proc.returncode == 0, f"{proc.stderr}\n{proc.stdout}"
    return summary


def _replay(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """The game the page listed, replayed by the core: (player, move) per turn. Every listed move must
    be legal and lead to the position the page recorded after it."""
    pos = griot.Position(summary["start"])
    assert str(pos.variant) == summary["canonical"]
    turns = []
    for t in summary["turns"]:
        player, move = t["move"].split(" ", 1)
        assert player == ("South" if pos.side_to_move == "S" else "North"), t
        pos = pos.play(move)
        assert str(pos) == t["after"], (t, str(pos))
        turns.append((player, move))
    assert str(pos) == summary["finalPosition"]
    return turns


def _check_evaluations(summary: dict[str, Any]) -> None:
    """Each of South's moves waited for the gateway's final evaluation of that very position, at
    least as deep as the engine's search of every move to the gateway's default depth goes (the
    page names no depth and asks for every move's score): that depth, or less where it proves
    every move's result sooner (near the turn limit)."""
    assert len(summary["evaluations"]) == len(summary["moves"])
    for ev, mv in zip(summary["evaluations"], summary["moves"], strict=True):
        assert ev["position"] == mv["before"]
        reached = griot.search(griot.Position(mv["before"]), depth=GATEWAY_DEFAULT_DEPTH, multipv=0).depth
        assert ev["depth"] >= reached, (ev, reached)
        assert ev["text"].startswith(f"depth {ev['depth']}: ")


def _check_marks(graph: dict[str, Any]) -> None:
    for mark in graph["marks"]:
        assert mark["mark"] in {"inaccuracy", "mistake", "blunder"}
        played, best = mark["label"].split(" (best ")
        assert played.split()[-1] != best.split(",")[0], mark


#: Six turns before the turn limit, South to move: `e` captures, the other moves do not (at depth
#: 4 the core scores e +15.00, the others +3.50 to +5.40: any of them loses over 9 seeds).
PUZZLE = "abapa(max_turns=30) 3,2,6,2,7,1/5,0,2,2,1,2 9-6 S 24 -"


def test_abapa_blunder_is_marked(online: str) -> None:
    """From a set-up position (`?position=`), South clicks the move the gateway's evaluation scores
    worst, throwing a capture away; the engine plays on at level 3 to the turn limit, and the
    page's analysis graph marks that move a blunder."""
    summary = _play(
        online, "abapa", "--position", PUZZLE, "--name", "abapa-puzzle",
        "--engine", "online", "--mode", "he", "--level", "3", "--pick", "worst", "--finish",
    )  # fmt: skip
    turns = _replay(summary)
    first = turns[0][1]
    assert first != "e"  # the worst move clicked, not the capture
    assert griot.Position(summary["finalPosition"]).outcome is not None
    _check_evaluations(summary)
    graph = summary["graph"]
    assert graph["points"] == len(turns)
    blunders = [m["label"] for m in graph["marks"] if m["mark"] == "blunder"]
    assert any(f" South {first} (best " in label for label in blunders), graph
    _check_marks(graph)


def test_abapa_finished_game_against_the_engine(online: str) -> None:
    """abapa with a 10-turn limit from the start: South clicks the move the gateway scores worst,
    the engine answers at level 3, the game ends, and the page draws the gateway's analysis of it
    (one point per turn; whatever it marks is a move other than the best)."""
    summary = _play(
        online, "abapa(max_turns=10)",
        "--engine", "online", "--mode", "he", "--level", "3", "--pick", "worst", "--finish",
    )  # fmt: skip
    turns = _replay(summary)
    assert [p for p, _ in turns] == ["South", "North"] * 5
    final = griot.Position(summary["finalPosition"])
    assert final.outcome is not None and final.outcome.reason == "turn_limit"
    assert summary["turnText"] == _summary_in_words(final.outcome, 10)
    _check_evaluations(summary)
    assert summary["graph"]["points"] == 10
    _check_marks(summary["graph"])


def test_sabouiyya_finished_game_against_the_engine(online: str) -> None:
    """Sabou'iyya (5x5 placement, two cells a move) with a 4-turn limit, against the engine."""
    summary = _play(
        online, "sabouiyya(max_turns=4)", "--engine", "online", "--mode", "he", "--level", "1", "--finish"
    )
    turns = _replay(summary)
    assert [p for p, _ in turns] == ["South", "North"] * 2
    assert griot.Position(summary["finalPosition"]).outcome is not None
    _check_evaluations(summary)
    assert summary["graph"]["points"] == 4
    _check_marks(summary["graph"])


@pytest.mark.parametrize("variant", ["leb-bbut-ahbochen", "bechi", "ikibuguzo"])
def test_other_families_against_the_engine(online: str, variant: str) -> None:
    """Two clicked moves, each evaluated by the gateway and answered by the engine, then the game so
    far analysed ("Analyse game")."""
    summary = _play(online, variant, "--engine", "online", "--mode", "he", "--level", "1", "--moves", "2")
    turns = _replay(summary)
    assert len(summary["moves"]) == 2
    assert "North" in {p for p, _ in turns}  # the engine answered
    _check_evaluations(summary)
    assert summary["graph"]["points"] == len(turns)


def test_abapa_without_a_gateway(offline: str) -> None:
    summary = _play(offline, "abapa", "--engine", "offline", "--moves", "2")
    assert len(_replay(summary)) == 2


def _summary_in_words(outcome: griot.GameOutcome, turn_limit: int) -> str:
    """What the page must say when a game ended at its turn limit, from the core's outcome."""
    south, north = outcome.scores
    why = f"the limit of {turn_limit} turns was reached"
    if outcome.winner is None:
        return f"Draw {south}-{north}: {why}"
    margin = abs(south - north)
    who = "South" if outcome.winner == "S" else "North"
    return f"{who} wins {south}-{north} (by {margin} seed{'' if margin == 1 else 's'}): {why}"


def _unanswered_api() -> str:
    """An API address on loopback that nobody listens on (the port is free when chosen)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/api"


#: abapa with 12 holes a side: wider than a phone at any legible size.
WIDE = "abapa(holes=12)"


@pytest.mark.parametrize("width", [1280, 390])
def test_board_as_a_newcomer_meets_it(online: str, width: int) -> None:
    """The plain page at a desktop's and a phone's width (newcomer.mjs): a clear error when the API
    cannot be reached, a loading state until the variants arrive, the person playing South against
    the engine by default, the sides and stores labelled, spaced and labelled option controls, no
    sideways overflow; then a short game with those defaults to its end, summed up in words, and
    the analysis graph with labelled axes. Screenshots: e2e/newcomer-<width>-*.png under ARTIFACTS."""
    summary = _play(
        online, "abapa(max_turns=6)", "--width", str(width), "--unreachable", _unanswered_api(),
        script=NEWCOMER,
    )  # fmt: skip
    assert summary["mode"] == "he"
    # On a phone the settings are folded away and the board is on the first screen.
    assert summary["settingsFolded"] == (width < 900)
    assert summary["boardOnFirstScreen"]
    fits = summary["boardFits"]
    assert set(fits) == {"unreachable", "start", "finished"}
    assert fits["start"] and fits["finished"], fits
    assert summary["closestControls"] >= 8
    # The engine played North's turns without anyone choosing it.
    pos = griot.Variant("abapa(max_turns=6)").start()
    for i, t in enumerate(summary["turns"]):
        player, move = t["move"].split(" ", 1)
        assert player == ("South", "North")[i % 2], summary["turns"]
        pos = pos.play(move)
        assert str(pos) == t["after"]
    assert len(summary["turns"]) == 6
    assert str(pos) == summary["finalPosition"]
    assert pos.outcome is not None
    assert summary["turnText"] == _summary_in_words(pos.outcome, 6)
    # The evaluation bar ends on the result.
    winner = {"S": "South wins", "N": "North wins", None: "draw"}[pos.outcome.winner]
    assert summary["evalCaption"] == winner
    graph = summary["graph"]
    assert graph["xTitle"] == "Turn"
    assert graph["yTitle"] == "South\u2019s score (seeds)"
    assert graph["xTicks"] == ["1", "2", "3", "4", "5", "6"]
    assert graph["yTicks"] == ["\u221212", "\u22126", "0", "+6", "+12"]
    assert graph["points"] == 6
    assert graph["width"] <= width
    # Proven results: squares at the edge, said in words, and a note saying what the squares are.
    assert (graph["note"] is not None) == (graph["proven"] > 0)
    for title in graph["provenTitles"]:
        assert re.fullmatch(r"after turn \d+: (South wins|North wins|a draw) with best play", title), title
    for line in graph["list"]:
        # Each mistake in words: what the move lost in seeds, or the proven results; no bare numbers.
        assert line == "no mistakes found" or re.fullmatch(
            r"(inaccuracy|mistake|blunder): \d+\. (South|North) \S+ \(best \S+, "
            r"(lost [\d.]+ seeds?|[^()]*with best play[^()]*)\)",
            line,
        ), line
    for name in ("unreachable", "loading", "start", "finished"):
        assert (ARTIFACTS / f"newcomer-{width}-{name}.png").is_file()


#: A board of each family: two rows with stores (abapa, leb-bbut-ahbochen, bechi), four rows
#: (ikibuguzo), 5x5 with pieces and two-cell moves (sabouiyya).
FAMILIES = ["abapa", "leb-bbut-ahbochen", "bechi", "ikibuguzo", "sabouiyya"]
PHONE, DESKTOP = 390, 1280
Box = list[float]


@pytest.fixture(scope="module")
def layouts(online: str) -> dict[tuple[int, str], dict[str, Any]]:
    """Every family's board and WIDE measured as they start, at both widths, in one browser."""
    summary = _node(
        LAYOUT, "--url", online, "--widths", f"{PHONE},{DESKTOP}", "--variants", ",".join([*FAMILIES, WIDE])
    )
    assert summary["consoleErrors"] == []
    return {(p["width"], p["variant"]): p for p in summary["pages"]}


def _inside(inner: Box, outer: Box, slack: float = 0.5) -> bool:
    x, y, w, h = inner
    ox, oy, ow, oh = outer
    return x >= ox - slack and y >= oy - slack and x + w <= ox + ow + slack and y + h <= oy + oh + slack


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def _check_holes(page: dict[str, Any]) -> None:
    """Each hole holds its count, its letter and its score badge, none over another, in 12 px or more."""
    for cell in page["cells"]:
        parts = [p for p in (cell["seeds"], cell["letter"], cell["badge"]) if p is not None]
        assert cell["letter"] is not None, cell
        for part in parts:
            assert _inside(part["box"], cell["box"]), cell
            assert part["font"] >= 12, cell
        for i, a in enumerate(parts):
            assert not any(_overlap(a["box"], b["box"]) for b in parts[i + 1 :]), cell
    for store in page["stores"]:
        assert store["nameFont"] >= 12 and store["countFont"] >= 12, store


@pytest.mark.parametrize("width", [PHONE, DESKTOP])
@pytest.mark.parametrize("variant", FAMILIES)
def test_board_geometry(layouts: dict[tuple[int, str], dict[str, Any]], variant: str, width: int) -> None:
    """Each family's board at a phone's and a desktop's width (layout.mjs; screenshots
    e2e/layout-<width>-<variant>.png under ARTIFACTS): nothing wider than the window; the whole
    board on the first screen (on a phone with the settings folded away above it, on a desktop
    beside it) and, on a desktop, at least half the window wide; every letter, count and score badge
    inside its own hole in 12 px or more; the evaluation bar naming South's end and North's and
    saying who is ahead; the game menu showing the game's name whole."""
    page = layouts[(width, variant)]
    win_w, win_h = page["window"]
    assert win_w == width
    assert page["scrollWidth"] <= win_w, f"the page is {page['scrollWidth']} px wide in a {win_w} px window"
    x, y, w, h = page["board"]
    assert x >= 0 and x + w <= win_w, page["board"]
    assert y >= 0 and y + h <= win_h, f"the board ends at {y + h} px, past the first screen ({win_h} px)"
    assert page["settingsOpen"] == (width == DESKTOP)
    if width == DESKTOP:
        assert w >= 0.5 * win_w, f"the board is {w} px wide in a {win_w} px window"
    _check_holes(page)
    badges = [c for c in page["cells"] if c["badge"] is not None]
    # The engine scores every legal move; a badge shows a move that is one hole (Sabou'iyya's moves
    # place on two cells, so its holes carry none).
    assert (len(badges) > 0) == (variant != "sabouiyya"), [c["label"] for c in badges]
    top, bottom = (s["text"] for s in page["sideLabels"])
    assert top.startswith("North's") and bottom.startswith("South's"), (top, bottom)
    south, north = page["eval"]["sides"]
    bar = page["eval"]["bar"]
    assert (south["text"], north["text"]) == ("South", "North") and south["visible"] and north["visible"]
    assert south["box"][0] + south["box"][2] <= bar[0] and north["box"][0] >= bar[0] + bar[2]
    assert page["eval"]["valueVisible"]
    assert re.fullmatch(r"(South|North) \+\d+(\.\d)?|level|(South|North) wins|draw", page["eval"]["value"])
    assert page["menu"]["width"] >= page["menu"]["needs"] - 0.5, page["menu"]
    assert Path(page["shot"]).is_file()


def test_board_too_wide_for_a_phone(layouts: dict[tuple[int, str], dict[str, Any]]) -> None:
    """abapa with 12 holes a side on a phone: the board scrolls inside its own frame, which fits the
    window, and keeps its letters and badges legible and inside the holes."""
    page = layouts[(PHONE, WIDE)]
    win_w, _ = page["window"]
    assert page["scrollWidth"] <= win_w
    fx, _, fw, _ = page["frame"]
    assert fx >= 0 and fx + fw <= win_w, page["frame"]
    assert page["board"][2] > fw  # wider than its frame: it scrolls there
    assert page["board"][0] >= fx - 0.5  # from its left end (nothing out of reach on the left)
    _check_holes(page)
    desktop = layouts[(DESKTOP, WIDE)]
    x, _, w, _ = desktop["board"]
    assert x >= 0 and x + w <= desktop["window"][0]
