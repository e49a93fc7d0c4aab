"""Server scaffolding every Griot service shares (see :mod:`griot.services.common.server`)."""
