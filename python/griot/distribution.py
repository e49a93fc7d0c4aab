"""The name Griot is installed by: the distribution ``pyproject.toml`` builds. The import name
and the command are ``griot``; the registry's ``griot`` is another project's, so every line that
tells a user what to install names :data:`DISTRIBUTION` (tests/test_install_lines.py checks the
README, the docs, the messages and the Dockerfile against ``pyproject.toml``)."""

from __future__ import annotations

__all__ = ["DISTRIBUTION", "SERVER_EXTRA", "install_line"]

#: The distribution's name (``project.name`` in pyproject.toml).
DISTRIBUTION = "griot-mancala"

#: The distribution with the extra that brings the workers, the gateway and the web server.
SERVER_EXTRA = f"{DISTRIBUTION}[server]"


def install_line(extra: str | None = None) -> str:
    """``pip install 'griot-mancala[EXTRA]'`` (or without an extra), as a message prints it."""
    return f"pip install '{DISTRIBUTION}[{extra}]'" if extra else f"pip install {DISTRIBUTION}"
