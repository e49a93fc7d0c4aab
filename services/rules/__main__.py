"""``python -m griot.services.rules``: runs the rules service until SIGTERM/SIGINT."""

from __future__ import annotations

import argparse

from griot.services.common.server import ServerConfig, add_arguments, config_from_args, run
from griot.services.rules.servicer import service_spec


def main(argv: list[str] | None = None) -> None:
    """Parses flags (defaults from GRIOT_RULES_* variables) and serves."""
    parser = argparse.ArgumentParser(
        prog="python -m griot.services.rules",
        description="Griot rules service: griot.v1.RulesService over gRPC, "
        "with health checking, reflection and Prometheus metrics.",
    )
    # uvloop when installed: the rules service is CPU-bound on per-call overhead (bench/RESULTS-rules.md).
    add_arguments(parser, "GRIOT_RULES", ServerConfig(event_loop="auto"))
    run(service_spec, config_from_args(parser.parse_args(argv)))


if __name__ == "__main__":
    main()
