"""The web server's settings: one flag and one ``GRIOT_WEB_*`` variable per field
(:mod:`griot.settings`); :func:`griot.services.web.__main__.parse_args` makes the server's
:class:`~griot.services.web.app.WebConfig` from them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import griot
from griot.settings import WEB_PORT, setting

PREFIX = "GRIOT_WEB"

#: The built demo board ships inside the package (web/app's build writes it there).
DEFAULT_STATIC = Path(griot.__file__).resolve().parent / "board"


@dataclass(frozen=True)
class WebSettings:
    """What ``python -m griot.services.web`` can be told."""

    host: str = setting("127.0.0.1", help="listen address")
    port: int = setting(WEB_PORT, help="HTTP port")
    rules: str = setting(
        "local", help="RulesService: 'local' (in process), HOST:PORT of a rules server, or 'off'"
    )
    analysis: str = setting("off", help="AnalysisService: HOST:PORT of the gateway, 'local', or 'off'")
    static: str = setting(
        help="folder of the built demo app, 'off' for none", default_factory=lambda: str(DEFAULT_STATIC)
    )
    cors_origins: str = setting(
        "", help="comma-separated origins allowed cross-origin, '*' for any; empty: same origin only"
    )
    max_receive_bytes: int = setting(64 * 1024, help="largest request accepted")
    max_send_bytes: int = setting(4 * 1024 * 1024, help="largest response sent")
    max_concurrent_rpcs: int | None = setting(1024, help="RPCs at once, 'off' = no limit")
    grace_seconds: float = setting(5.0, help="seconds in-flight requests get to finish on SIGTERM/SIGINT")
    log_level: str = setting("INFO", help="log level")
    log_format: str = setting("json", choices=("json", "text"), help="json (one object a line) or text")
