"""Server scaffolding every Griot service shares (see :mod:`services.common.server`)."""
