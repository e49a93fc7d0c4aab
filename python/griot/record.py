"""Game records: one game per text file, PGN-like (``docs/RECORDS.md`` describes the format).

    [Variant "abapa"]
    [Options "holes=4,seeds=3"]
    [South "Ama"]
    [North "griot (simple opponent, level 2)"]
    [Date "2026.11.22"]
    [Result "1-0"]

    1. c 2. f 3. a 4. b ...
    1-0

:func:`loads` reads a record and replays every move through the rules (so a record that loads is a
legal game); :func:`dumps` writes one. Errors are :class:`RecordError` (a :class:`griot.GriotError`)
naming the line and the field: ``line 3, field Options: ...`` or ``line 9, move 14 "g": ...``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from griot._core import GriotError, Position, Variant

__all__ = ["RESULTS", "GameRecord", "RecordError", "dump", "dumps", "load", "loads", "result_of"]

#: Result tokens: South won, North won, a draw, unfinished or unknown.
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
#: Tags written first, in this order; any other tag follows in the order it was given.
SEVEN = ("Event", "Site", "Date", "Round", "South", "North", "Result")
_RESERVED = ("Variant", "Options", "Position")

_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_NUMBER = re.compile(r"^(\d+)\.$")
_NUMBERED = re.compile(r"^(\d+)\.(\S+)$")
_WIDTH = 80


class RecordError(GriotError):
    """A record that cannot be read: ``line`` (1-based, None when not tied to a line) and ``field``
    (a tag name, ``move N`` or ``movetext``) say where."""

    def __init__(self, message: str, line: int | None = None, field: str | None = None) -> None:
        where = ", ".join(x for x in (f"line {line}" if line else "", f"field {field}" if field else "") if x)
        super().__init__(f"{where}: {message}" if where else message)
        self.line = line
        self.field = field
        self.reason = message


def result_of(pos: Position) -> str:
    """The result token of a position: ``*`` while the game goes on."""
    outcome = pos.outcome
    if outcome is None:
        return "*"
    return {"S": "1-0", "N": "0-1", None: "1/2-1/2"}[outcome.winner]


@dataclass
class GameRecord:
    """One game: its variant (canonical string, options included), the start position when it is
    not the variant's start, the moves in move notation, the result and the other tags."""

    variant: str
    moves: list[str] = field(default_factory=list)
    start: str | None = None
    result: str = "*"
    tags: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_positions(cls, start: Position, moves: Iterable[str], **tags: str) -> GameRecord:
        """A record of ``moves`` played from ``start``; the result is the final position's."""
        moves = [str(m) for m in moves]
        pos = start
        for m in moves:
            pos = pos.play(m)
        variant = start.variant
        start_text = None if start == variant.start() else str(start)
        return cls(variant.canonical, moves, start_text, result_of(pos), dict(tags))

    def start_position(self) -> Position:
        return Position(self.start) if self.start else Variant(self.variant).start()

    def positions(self) -> list[Position]:
        """The start and the position after each move."""
        out = [self.start_position()]
        for m in self.moves:
            out.append(out[-1].play(m))
        return out

    def final_position(self) -> Position:
        return self.positions()[-1]


def _quote(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise ValueError("a tag value cannot hold a line break")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def dumps(record: GameRecord) -> str:
    """The record as text (it reads back equal with :func:`loads`)."""
    if record.result not in RESULTS:
        raise ValueError(f"result {record.result!r} is not one of {', '.join(RESULTS)}")
    variant = Variant(record.variant)
    canonical = variant.canonical
    lines = [f"[Variant {_quote(variant.id)}]"]
    if canonical != variant.id:
        lines.append(f"[Options {_quote(canonical[len(variant.id) + 1 : -1])}]")
    if record.start:
        lines.append(f"[Position {_quote(str(Position(record.start)))}]")
    tags = {k: v for k, v in record.tags.items() if k not in _RESERVED and k != "Result"}
    for key in SEVEN:
        if key == "Result":
            lines.append(f"[Result {_quote(record.result)}]")
        elif key in tags:
            lines.append(f"[{key} {_quote(tags[key])}]")
    for key, value in tags.items():
        if key not in SEVEN:
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key):
                raise ValueError(f"tag name {key!r}: letters, digits and _ only, a letter first")
            lines.append(f"[{key} {_quote(value)}]")
    lines.append("")

    turn = record.start_position().turns
    tokens = [f"{turn + i + 1}. {m}" for i, m in enumerate(record.moves)] + [record.result]
    line = ""
    for token in tokens:
        if line and len(line) + 1 + len(token) > _WIDTH:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(lines) + "\n"


def _strip_comments(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Movetext lines with ``{...}`` comments (which may span lines) and ``; ...`` rests removed."""
    out: list[tuple[int, str]] = []
    depth_line: int | None = None
    for number, text in lines:
        kept = []
        i = 0
        while i < len(text):
            ch = text[i]
            if depth_line is not None:
                if ch == "}":
                    depth_line = None
            elif ch == "{":
                depth_line = number
            elif ch == ";":
                break
            else:
                kept.append(ch)
            i += 1
        out.append((number, "".join(kept)))
    if depth_line is not None:
        raise RecordError("comment opened with { is never closed", depth_line, "movetext")
    return out


def loads(text: str) -> GameRecord:
    """Reads one record and replays its moves. Raises :class:`RecordError` naming line and field."""
    raw = text.splitlines()
    tags: dict[str, str] = {}
    tag_lines: dict[str, int] = {}
    i = 0
    while i < len(raw) and not raw[i].strip():
        i += 1
    while i < len(raw):
        line = raw[i].strip()
        if not line:
            i += 1
            continue
        if not line.startswith("["):
            break
        m = _TAG.match(line)
        if m is None:
            raise RecordError(f'malformed tag {line!r} (expected [Name "value"])', i + 1, "tags")
        key, value = m.group(1), _unquote(m.group(2))
        if key in tags:
            raise RecordError(f"tag {key} given twice (first on line {tag_lines[key]})", i + 1, key)
        tags[key], tag_lines[key] = value, i + 1
        i += 1

    if "Variant" not in tags:
        raise RecordError("the Variant tag is missing", None, "Variant")
    variant_text = tags.pop("Variant")
    options = tags.pop("Options", None)
    if options is not None:
        if "(" in variant_text:
            raise RecordError("options given both in Variant and in Options", tag_lines["Options"], "Options")
        variant_text = f"{variant_text}({options})" if options.strip() else variant_text
    try:
        variant = Variant(variant_text)
    except GriotError as e:
        where = "Options" if options is not None else "Variant"
        raise RecordError(str(e), tag_lines[where], where) from None

    start_text = tags.pop("Position", None)
    if start_text is not None:
        try:
            start = Position(start_text)
        except GriotError as e:
            raise RecordError(str(e), tag_lines["Position"], "Position") from None
        if start.variant.canonical != variant.canonical:
            raise RecordError(
                f"the position is of {start.variant.canonical}, the record of {variant.canonical}",
                tag_lines["Position"],
                "Position",
            )
    else:
        start = variant.start()

    result_tag = tags.pop("Result", None)
    if result_tag is not None and result_tag not in RESULTS:
        raise RecordError(f"{result_tag!r} is not one of {', '.join(RESULTS)}", tag_lines["Result"], "Result")

    moves: list[str] = []
    pos = start
    result_token: tuple[int, str] | None = None
    for number, line in _strip_comments([(n + 1, raw[n]) for n in range(i, len(raw))]):
        for token in line.split():
            if result_token is not None:
                raise RecordError(f"{token!r} after the result {result_token[1]}", number, "movetext")
            if token in RESULTS:
                result_token = (number, token)
                continue
            m = _NUMBER.match(token)
            move_text = None
            if m is None:
                m2 = _NUMBERED.match(token)
                if m2 is not None:
                    m, move_text = m2, m2.group(2)
                else:
                    move_text = token
            # Moves are numbered from the start's turn counter, one number a move: a turn of
            # several steps (Ikibuguzo's choices, H'ajeb captures) advances `turns` by its steps
            # but is one move of the record.
            expected = start.turns + len(moves) + 1
            if m is not None:
                if int(m.group(1)) != expected:
                    raise RecordError(
                        f"move number {m.group(1)} where turn {expected} was expected",
                        number,
                        f"move {len(moves) + 1}",
                    )
            if move_text is None:
                continue
            try:
                mv = pos.parse_move(move_text)
                pos = pos.play(mv)
            except GriotError as e:
                raise RecordError(
                    f"{move_text!r} at turn {expected}: {e}", number, f"move {len(moves) + 1}"
                ) from None
            moves.append(mv.text)

    result = result_token[1] if result_token else (result_tag or "*")
    if result_token and result_tag and result_token[1] != result_tag:
        raise RecordError(
            f"the movetext ends with {result_token[1]} but the Result tag says {result_tag}",
            result_token[0],
            "Result",
        )
    actual = result_of(pos)
    if actual != "*" and result != "*" and result != actual:
        raise RecordError(
            f"the game ends {actual} ({pos.outcome.reason if pos.outcome else ''}) "
            f"but the record says {result}",
            tag_lines.get("Result", result_token[0] if result_token else None),
            "Result",
        )
    if result == "*" and actual != "*":
        result = actual
    return GameRecord(
        variant.canonical,
        moves,
        None if start == variant.start() else str(start),
        result,
        tags,
    )


def load(path: str | Path) -> GameRecord:
    """Reads the record in ``path``."""
    return loads(Path(path).read_text(encoding="utf-8"))


def dump(record: GameRecord, path: str | Path) -> None:
    """Writes ``record`` to ``path`` (UTF-8)."""
    Path(path).write_text(dumps(record), encoding="utf-8")
