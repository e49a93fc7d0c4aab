"""Griot's API in the browser: the gRPC services over Connect and gRPC-Web (``python -m services.web``)."""

from services.web.app import WebConfig, create_app

__all__ = ["WebConfig", "create_app"]
