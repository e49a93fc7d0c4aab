"""The rules service: ``griot.v1.RulesService`` over gRPC, stateless, for every game Griot knows.

Run it with ``python -m griot.services.rules`` (``--help`` lists the flags; each has a ``GRIOT_RULES_*``
environment variable). It serves health checking (``grpc.health.v1.Health``), server reflection
(so ``grpcurl`` works without the protos) and Prometheus metrics on a separate HTTP port.
"""

from griot.services.rules.servicer import SERVICE_NAME, add_servicers, service_spec

__all__ = ["SERVICE_NAME", "add_servicers", "service_spec"]
