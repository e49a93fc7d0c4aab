"""Fixtures of the worker tests: see ``workers_stack``."""

from workers_stack import stack, two_workers  # noqa: F401
