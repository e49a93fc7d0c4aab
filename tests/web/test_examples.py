"""The browser API's documented examples, run against the real stack (conftest.py's ``griot_stack``,
what `griot up` starts): every `curl` (and `buf curl`) block of web/README.md and README.md, with
`http://127.0.0.1:8080` replaced by the stack's web server, must answer JSON showing every
`"key": value` the JSON block after it shows; the TypeScript example (web/client/examples/
evaluate.ts, quoted in web/README.md) must run under vite-node and print what its comments say."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from upstack import GriotStack

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
DOCS = [ROOT / "web" / "README.md", ROOT / "README.md"]
DOC_URL = "http://127.0.0.1:8080"
START = "abapa 4,4,4,4,4,4/4,4,4,4,4,4 0-0 S 0 -"

BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.S)
SCALAR = re.compile(r'"(\w+)":\s*("(?:[^"\\]|\\.)*"|-?\d+|true|false)')
ARRAY = re.compile(r'"(\w+)":\s*(\[[^\[\]{}]*\])')


def examples() -> list[tuple[str, str, str | None]]:
    """(where, command, the JSON block after it or None) for every curl block of the docs."""
    found = []
    for doc in DOCS:
        blocks = BLOCK.findall(doc.read_text())
        for i, (lang, body) in enumerate(blocks):
            if lang == "sh" and re.match(r"(web/node_modules/\.bin/buf )?curl ", body):
                nxt = blocks[i + 1] if i + 1 < len(blocks) and blocks[i + 1][0] == "json" else None
                found.append((f"{doc.relative_to(ROOT)}#{i}", body, nxt[1] if nxt else None))
    return found


def json_stream(text: str) -> list[Any]:
    """The JSON values printed one after another (buf curl prints one per message)."""
    decoder, out, pos = json.JSONDecoder(), [], 0
    text = text.strip()
    while pos < len(text):
        value, end = decoder.raw_decode(text, pos)
        out.append(value)
        pos = end
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


def pairs(value: Any) -> set[tuple[str, str]]:
    """Every (key, JSON of its value) at any depth."""
    out: set[tuple[str, str]] = set()
    if isinstance(value, dict):
        for k, v in value.items():
            out.add((k, json.dumps(v, separators=(",", ":"))))
            out |= pairs(v)
    elif isinstance(value, list):
        for v in value:
            out |= pairs(v)
    return out


def documented_pairs(block: str) -> set[tuple[str, str]]:
    """The (key, value) pairs a documented JSON block shows in full ("..." marks elisions)."""
    shown = set()
    for key, raw in [*SCALAR.findall(block), *ARRAY.findall(block)]:
        if "..." in raw:
            continue
        shown.add((key, json.dumps(json.loads(raw), separators=(",", ":"))))
    return shown


def test_the_docs_have_examples() -> None:
    found = examples()
    assert len(found) >= 5, found
    assert sum(e[2] is not None for e in found) >= 3


@pytest.mark.parametrize(
    ("where", "command", "expected"), examples(), ids=lambda x: x if "#" in str(x) else ""
)
def test_curl_example(griot_stack: GriotStack, where: str, command: str, expected: str | None) -> None:
    if command.startswith("web/") and not (WEB / "node_modules" / ".bin" / "buf").exists():
        pytest.skip("web/node_modules is missing: run `make web-install`")
    script = command.replace(DOC_URL, griot_stack.web)
    run = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, f"{where}: {run.stderr}"
    messages = json_stream(run.stdout)
    assert messages, f"{where}: no JSON in {run.stdout!r}"
    if expected is not None:
        got = set().union(*(pairs(m) for m in messages))
        missing = documented_pairs(expected) - got
        assert not missing, f"{where}: the docs show {sorted(missing)}; the server answered {run.stdout}"
    if "AnalysisService/Evaluate" in command:  # a stream: deeper and deeper, the last one final
        depths = [m["evaluation"]["depth"] for m in messages]
        assert depths == sorted(set(depths)) and depths[-1] >= 8
        assert messages[-1]["evaluation"]["final"] is True
        assert {m["position"] for m in messages} == {START}


def test_typescript_example(griot_stack: GriotStack) -> None:
    example = WEB / "client" / "examples" / "evaluate.ts"
    if shutil.which("node") is None or not (WEB / "node_modules" / ".bin" / "vite-node").exists():
        pytest.skip("node or web/node_modules is missing: run `make web-install`")
    code = example.read_text()
    assert code[code.index("\nimport ") + 1 :] in (WEB / "README.md").read_text(), (
        "web/README.md quotes web/client/examples/evaluate.ts (from its first import on) verbatim"
    )
    run = subprocess.run(
        [str(WEB / "node_modules" / ".bin" / "vite-node"), str(example), f"{griot_stack.web}/api"],
        cwd=WEB, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[0] == f"{START} a b c d e f"
    assert lines[1] == "not_own_hole"
    evaluations = [line.split() for line in lines[2:]]
    depths = [int(e[0]) for e in evaluations]
    assert depths and depths == sorted(set(depths)) and depths[-1] >= 10
    assert [e[-1] for e in evaluations] == ["false"] * (len(evaluations) - 1) + ["true"]
    assert all(e[2] in {"a", "b", "c", "d", "e", "f"} for e in evaluations)


def test_readme_typescript_snippet(griot_stack: GriotStack) -> None:
    """README.md's short streaming example, as written (the URL aside), under vite-node."""
    vite_node = WEB / "node_modules" / ".bin" / "vite-node"
    if shutil.which("node") is None or not vite_node.exists():
        pytest.skip("node or web/node_modules is missing: run `make web-install`")
    (snippet,) = [body for lang, body in BLOCK.findall((ROOT / "README.md").read_text()) if lang == "ts"]
    # Inside web/node_modules, so that "@griot/client" resolves to the workspace package.
    path = WEB / "node_modules" / ".griot-tests" / "readme-snippet.ts"
    path.parent.mkdir(exist_ok=True)
    path.write_text(snippet.replace(DOC_URL, griot_stack.web))
    run = subprocess.run([str(vite_node), str(path)], cwd=WEB, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    last = run.stdout.strip().splitlines()[-1].split()
    assert int(last[0]) >= 10 and last[2] in {"a", "b", "c", "d", "e", "f"}, run.stdout
