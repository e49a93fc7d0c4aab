"""Griot's network services: each sub-package is one server (``python -m services.<name>``).

- :mod:`griot.services.rules`: the gRPC ``RulesService`` (stateless rules over Griot notation).
- :mod:`griot.services.common`: what every server shares: error mapping, metrics, health, reflection,
  logging and graceful shutdown.
"""
