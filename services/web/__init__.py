"""Griot's API in the browser: the gRPC services over Connect and gRPC-Web.

Run it with ``python -m griot.services.web``.
"""

from typing import Any

__all__ = ["WebConfig", "create_app"]


def __getattr__(name: str) -> Any:
    # Loaded when asked for, so that ``python -m griot.services.web`` can say in one line which
    # package of the server extra is missing before the application's imports fail.
    if name in __all__:
        from griot.services.web import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
