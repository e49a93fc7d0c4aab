"""Griot's API in the browser: the gRPC services over Connect and gRPC-Web.

Run it with ``python -m griot.services.web``.
"""

from griot.services.web.app import WebConfig, create_app

__all__ = ["WebConfig", "create_app"]
