"""``python -m griot.services.gateway``: runs the analysis gateway until SIGTERM/SIGINT."""

from __future__ import annotations

import functools

from griot.distribution import install_line
from griot.services.common.server import run

try:
    from griot.services.gateway.app import service_spec
    from griot.services.gateway.config import build_parser, from_args
except ModuleNotFoundError as e:
    missing = f"the gateway needs {e.name}, which is not installed: {install_line('server')}"
    raise SystemExit(missing) from None


def main(argv: list[str] | None = None) -> None:
    """Parses flags (defaults from GRIOT_GATEWAY_* and the shared GRIOT_* variables) and serves."""
    server_config, gateway_config = from_args(build_parser().parse_args(argv))
    run(functools.partial(service_spec, gateway_config), server_config)


if __name__ == "__main__":
    main()
