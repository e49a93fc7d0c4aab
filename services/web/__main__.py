"""``python -m griot.services.web``: the Connect/gRPC-Web server (and the demo app) until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import griot

try:
    import uvicorn
    from griot.services.common.server import setup_logging
    from griot.services.web.app import WebConfig, create_app
except ModuleNotFoundError as e:
    missing = f"the web server needs {e.name}, which is not installed: pip install 'griot[server]'"
    raise SystemExit(missing) from None

#: The built demo board ships inside the package (web/app's build writes it there).
DEFAULT_STATIC = Path(griot.__file__).resolve().parent / "board"


def _env(name: str, default: str) -> str:
    return os.environ.get(f"GRIOT_WEB_{name}", default)


def build_parser() -> argparse.ArgumentParser:
    """The web server's flags, with defaults from GRIOT_WEB_* variables."""
    p = argparse.ArgumentParser(
        prog="python -m griot.services.web",
        description="Griot web server: RulesService and AnalysisService over the Connect protocol "
        "and gRPC-Web (JSON or Protobuf over HTTP/1.1), plus the demo board's files.",
    )
    p.add_argument("--host", default=_env("HOST", "127.0.0.1"), help="listen address [GRIOT_WEB_HOST]")
    p.add_argument("--port", type=int, default=int(_env("PORT", "8080")), help="[GRIOT_WEB_PORT]")
    p.add_argument(
        "--rules",
        default=_env("RULES", "local"),
        help="RulesService: 'local' (in process), HOST:PORT of a rules server, or 'off' [GRIOT_WEB_RULES]",
    )
    p.add_argument(
        "--analysis",
        default=_env("ANALYSIS", "off"),
        help="AnalysisService: HOST:PORT of the gateway, 'local', or 'off' [GRIOT_WEB_ANALYSIS]",
    )
    p.add_argument(
        "--static",
        default=_env("STATIC", str(DEFAULT_STATIC)),
        help="folder of the built demo app, 'off' for none [GRIOT_WEB_STATIC]",
    )
    p.add_argument(
        "--cors-origins",
        default=_env("CORS_ORIGINS", ""),
        help="comma-separated origins allowed cross-origin, '*' for any; empty: same origin only "
        "[GRIOT_WEB_CORS_ORIGINS]",
    )
    p.add_argument(
        "--max-receive-bytes",
        type=int,
        default=int(_env("MAX_RECEIVE_BYTES", "65536")),
        help="[GRIOT_WEB_MAX_RECEIVE_BYTES]",
    )
    p.add_argument(
        "--max-send-bytes",
        type=int,
        default=int(_env("MAX_SEND_BYTES", "4194304")),
        help="[GRIOT_WEB_MAX_SEND_BYTES]",
    )
    p.add_argument(
        "--max-concurrent-rpcs",
        default=_env("MAX_CONCURRENT_RPCS", "1024"),
        help="'off' = no limit [GRIOT_WEB_MAX_CONCURRENT_RPCS]",
    )
    p.add_argument(
        "--grace-seconds",
        type=float,
        default=float(_env("GRACE_SECONDS", "5")),
        help="[GRIOT_WEB_GRACE_SECONDS]",
    )
    p.add_argument("--log-level", default=_env("LOG_LEVEL", "INFO"), help="[GRIOT_WEB_LOG_LEVEL]")
    p.add_argument(
        "--log-format",
        choices=["json", "text"],
        default=_env("LOG_FORMAT", "json"),
        help="[GRIOT_WEB_LOG_FORMAT]",
    )
    return p


def parse_args(argv: list[str] | None = None) -> WebConfig:
    """The configuration from the flags and GRIOT_WEB_* variables."""
    a = build_parser().parse_args(argv)
    mcr = None if str(a.max_concurrent_rpcs).lower() in ("off", "none", "") else int(a.max_concurrent_rpcs)
    return WebConfig(
        host=a.host,
        port=a.port,
        services={"griot.v1.RulesService": a.rules, "griot.v1.AnalysisService": a.analysis},
        static_dir=None if a.static == "off" else Path(a.static),
        cors_origins=tuple(o.strip() for o in a.cors_origins.split(",") if o.strip()),
        max_receive_bytes=a.max_receive_bytes,
        max_send_bytes=a.max_send_bytes,
        max_concurrent_rpcs=mcr,
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
