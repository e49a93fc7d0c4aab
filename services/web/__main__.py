"""``python -m griot.services.web``: the Connect/gRPC-Web server (and the demo app) until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
from pathlib import Path

from griot import settings
from griot.distribution import install_line

try:
    import uvicorn
    from griot.services.common.server import setup_logging
    from griot.services.web.app import WebConfig, create_app
    from griot.services.web.config import PREFIX, WebSettings
except ModuleNotFoundError as e:
    missing = f"the web server needs {e.name}, which is not installed: {install_line('server')}"
    raise SystemExit(missing) from None


def build_parser() -> argparse.ArgumentParser:
    """The web server's flags, with defaults from GRIOT_WEB_* variables."""
    p = argparse.ArgumentParser(
        prog="python -m griot.services.web",
        description="Griot web server: RulesService and AnalysisService over the Connect protocol "
        "and gRPC-Web (JSON or Protobuf over HTTP/1.1), plus the demo board's files.",
    )
    settings.add_arguments(p, WebSettings, PREFIX)
    return p


def parse_args(argv: list[str] | None = None) -> WebConfig:
    """The configuration from the flags and GRIOT_WEB_* variables."""
    a = settings.from_args(WebSettings, build_parser().parse_args(argv))
    return WebConfig(
        host=a.host,
        port=a.port,
        services={"griot.v1.RulesService": a.rules, "griot.v1.AnalysisService": a.analysis},
        static_dir=None if a.static == "off" else Path(a.static),
        cors_origins=tuple(o.strip() for o in a.cors_origins.split(",") if o.strip()),
        max_receive_bytes=a.max_receive_bytes,
        max_send_bytes=a.max_send_bytes,
        max_concurrent_rpcs=a.max_concurrent_rpcs,
        grace_seconds=a.grace_seconds,
        log_level=a.log_level,
        log_format=a.log_format,
    )


def main(argv: list[str] | None = None) -> None:
    config = parse_args(argv)
    setup_logging(config.log_level, config.log_format)
    app = create_app(config)
    uvicorn.run(
        app,
        host=config.host,
        port=config.port,
        log_config=None,
        log_level=config.log_level.lower(),
        lifespan="on",
        # asyncio as before uvloop became a dependency (for the rules service): uvicorn's default
        # "auto" would switch this server to uvloop unmeasured.
        loop="asyncio",
        timeout_graceful_shutdown=int(config.grace_seconds),
        access_log=False,
    )


if __name__ == "__main__":
    main()
