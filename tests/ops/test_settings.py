"""One settings type per component (:mod:`griot.settings`): every option of every server and of
``griot up`` shows its environment variable in ``--help``, the variable sets the option's default,
and the option wins over the variable."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from dataclasses import dataclass

import click
import pytest
from click.testing import CliRunner
from griot import settings
from griot.cli import main
from griot.settings import setting

VARIABLE = re.compile(r"\[(GRIOT_[A-Z_]+)")


def _rules_parser() -> argparse.ArgumentParser:
    from griot.services.common.server import ServerConfig, add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser, "GRIOT_RULES", ServerConfig())
    return parser


def _gateway_parser() -> argparse.ArgumentParser:
    from griot.services.gateway.config import build_parser

    return build_parser()


def _web_parser() -> argparse.ArgumentParser:
    from griot.services.web.__main__ import build_parser

    return build_parser()


def _option_blocks(help_text: str) -> dict[str, str]:
    """Each option of an argparse ``--help`` and its text (wrapped lines joined)."""
    blocks: dict[str, str] = {}
    current = ""
    for line in help_text.split("options:", 1)[1].splitlines():
        if line.startswith("  -"):
            current = line.split()[0].rstrip(",")
            blocks[current] = line
        elif current:
            blocks[current] += " " + line.strip()
    return blocks


@pytest.mark.parametrize(
    "make", [_rules_parser, _gateway_parser, _web_parser], ids=["rules", "gateway", "web"]
)
def test_every_server_option_shows_its_variable(make: Callable[[], argparse.ArgumentParser]) -> None:
    blocks = _option_blocks(make().format_help())
    assert len(blocks) > 10
    missing = [flag for flag, text in blocks.items() if flag != "-h" and not VARIABLE.search(text)]
    assert missing == []


def test_every_option_of_griot_up_shows_its_variable() -> None:
    up = main.commands["up"]
    options = [p for p in up.params if isinstance(p, click.Option) and p.name != "help"]
    assert len(options) > 20
    assert [o.name for o in options if not o.envvar] == []
    shown = CliRunner().invoke(main, ["up", "--help"], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    for o in options:
        assert f"[{o.envvar}" in " ".join(shown.output.split()), o.name


def test_every_option_of_griot_worker_shows_its_variable() -> None:
    options = [p for p in main.commands["worker"].params if isinstance(p, click.Option) and p.name != "help"]
    assert {o.name for o in options} >= {"name", "broker_url", "cache_url", "concurrency", "state_file"}
    shown = " ".join(CliRunner().invoke(main, ["worker", "--help"], terminal_width=200).output.split())
    for o in options:
        assert o.envvar and f"[{o.envvar}" in shown, o.name


def test_every_worker_setting_has_its_variable() -> None:
    from griot.workers.config import Settings

    names = [settings.env_name(f, None) for f in _fields(Settings)]
    assert names and None not in names
    assert "GRIOT_BROKER_URL" in names and "GRIOT_TASK_SOFT_LIMIT" in names


def _fields(cls: type) -> list[object]:
    import dataclasses

    return [f for f in dataclasses.fields(cls) if "help" in f.metadata]


def test_the_variable_is_the_default_and_the_option_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIOT_GATEWAY_WINDOW", "5")
    monkeypatch.setenv("GRIOT_GATEWAY_METRICS_PORT", "off")
    monkeypatch.setenv("GRIOT_GATEWAY_API_KEYS_FILE", "")
    from griot.services.gateway.config import from_args

    server, gateway = from_args(_gateway_parser().parse_args([]))
    assert gateway.window == 5 and server.metrics_port is None and gateway.api_keys_file is None
    assert server.port == 50052  # the gateway's own default, not the rules service's
    _, gateway = from_args(_gateway_parser().parse_args(["--window", "7"]))
    assert gateway.window == 7


@dataclass(frozen=True)
class _Example:
    count: int = setting(3, help="a count")
    limit: int | None = setting(None, help="a limit, 'off' = none")
    flag: bool = setting(False, env="EXAMPLE_FLAG", help="a flag")


def test_from_env_reads_each_type_and_names_a_bad_value() -> None:
    env = {"EX_COUNT": "4", "EX_LIMIT": "off", "EXAMPLE_FLAG": "on"}
    assert settings.from_env(_Example, "EX", env) == _Example(4, None, True)
    assert settings.from_env(_Example, "EX", {"EX_COUNT": "", "EX_LIMIT": "9"}) == _Example(3, 9, False)
    with pytest.raises(ValueError, match=r"EX_COUNT='many'"):
        settings.from_env(_Example, "EX", {"EX_COUNT": "many"})
    with pytest.raises(ValueError, match=r"EXAMPLE_FLAG='maybe'"):
        settings.from_env(_Example, "EX", {"EXAMPLE_FLAG": "maybe"})


def test_the_cache_cluster_setting_is_one_variable_for_the_gateway_and_the_workers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from griot.services.gateway.config import from_args
    from griot.workers.config import Settings

    assert "[GRIOT_CACHE_CLUSTER]" in _option_blocks(_gateway_parser().format_help())["--cache-cluster"]
    _, gateway = from_args(_gateway_parser().parse_args([]))
    assert gateway.cache_cluster is False and Settings.from_env().cache_cluster is False
    monkeypatch.setenv("GRIOT_CACHE_CLUSTER", "1")
    _, gateway = from_args(_gateway_parser().parse_args([]))
    assert gateway.cache_cluster is True and Settings.from_env().cache_cluster is True
    _, gateway = from_args(_gateway_parser().parse_args(["--cache-cluster", "off"]))
    assert gateway.cache_cluster is False
    monkeypatch.setenv("GRIOT_CACHE_CLUSTER", "maybe")
    with pytest.raises(ValueError, match="GRIOT_CACHE_CLUSTER='maybe'"):
        Settings.from_env()
