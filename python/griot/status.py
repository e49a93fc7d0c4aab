"""Griot's errors as gRPC statuses and back: the one mapping between the exception hierarchy and
the wire.

Servers call :func:`status_for` to turn a :class:`~griot.GriotError` into a status code, a message
and a ``google.rpc.ErrorInfo`` detail; clients call :func:`error_from_rpc` to turn a failed call
back into the same exception class (with ``.code`` / ``.option`` / ``.field`` restored).

=========================  ===================  ===========================================
Exception                  Status code          ErrorInfo ``reason``
=========================  ===================  ===========================================
NotationError              INVALID_ARGUMENT     ``bad_notation``
VariantError (syntax)      INVALID_ARGUMENT     ``bad_variant``
VariantError (option)      INVALID_ARGUMENT     ``bad_option`` (metadata ``option``)
RuleFileError              INVALID_ARGUMENT     ``bad_rule_file`` (metadata ``field``)
UnknownVariantError        NOT_FOUND            ``unknown_variant``
IllegalMoveError           INVALID_ARGUMENT     the rule's code, e.g. ``empty_hole`` (metadata ``move``)
HistoryError               INVALID_ARGUMENT     ``bad_history`` (metadata ``index``)
=========================  ===================  ===========================================

Service-level failures that are not bad game input (the gateway's ``unknown_job``, ``overloaded``,
``quota``, a missing API key...) are :class:`StatusError` values: they carry their status code and
reason themselves, and ``retry_after`` adds a ``google.rpc.RetryInfo`` detail and a ``retry-after``
trailing metadata entry (seconds) for ``RESOURCE_EXHAUSTED``.

Every ErrorInfo has domain :data:`ERROR_DOMAIN` and metadata ``error`` naming the exception kind
(``notation``, ``variant``, ``unknown_variant``, ``rule_file``, ``illegal_move``), so a client
never has to parse messages.

The same statuses reach browsers over the Connect protocol (``services/web``): :func:`connect_code`
names the Connect error code of each gRPC status code (``INVALID_ARGUMENT`` -> ``invalid_argument``,
``CANCELLED`` -> ``canceled``) and :func:`status_details` unpacks a status's details (the
ErrorInfo) from ``grpc-status-details-bin``, so a Connect error carries the very same detail.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from griot._core import (
    GriotError,
    IllegalMoveError,
    NotationError,
    RuleFileError,
    UnknownVariantError,
    VariantError,
)
from griot.history import HistoryError

__all__ = [
    "CONNECT_CODES",
    "ERROR_DOMAIN",
    "RpcStatus",
    "StatusError",
    "connect_code",
    "error_from_rpc",
    "status_details",
    "status_for",
]

#: The ``google.rpc.ErrorInfo.domain`` of every error Griot's services raise.
ERROR_DOMAIN = "griot.v1"


@dataclass(frozen=True)
class _Status(grpc.Status):
    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str | bytes], ...]


@dataclass(frozen=True)
class RpcStatus:
    """A status to end a call with: code, message and the ErrorInfo detail's reason and metadata;
    ``retry_after`` (seconds) adds a ``google.rpc.RetryInfo`` detail and ``retry-after`` metadata."""

    code: grpc.StatusCode
    message: str
    reason: str
    metadata: dict[str, str] = field(default_factory=dict)
    retry_after: float | None = None

    def to_grpc_status(self) -> grpc.Status:
        """The status with its details packed into ``grpc-status-details-bin``."""
        info = error_details_pb2.ErrorInfo(reason=self.reason, domain=ERROR_DOMAIN, metadata=self.metadata)
        detail = any_pb2.Any()
        detail.Pack(info)
        details = [detail]
        extra: tuple[tuple[str, str | bytes], ...] = ()
        if self.retry_after is not None:
            retry = error_details_pb2.RetryInfo()
            retry.retry_delay.FromMilliseconds(max(0, round(self.retry_after * 1000)))
            packed = any_pb2.Any()
            packed.Pack(retry)
            details.append(packed)
            extra = (("retry-after", str(max(1, round(self.retry_after)))),)
        proto = status_pb2.Status(code=self.code.value[0], message=self.message, details=details)
        status: grpc.Status = rpc_status.to_status(proto)
        if not extra:
            return status
        return _Status(status.code, status.details, (*status.trailing_metadata, *extra))


class StatusError(Exception):
    """A failure that is not bad game input: it names its own status code and ErrorInfo reason
    (``unknown_job``, ``overloaded``, ``quota``, ``unauthenticated``, ``limit`` ...)."""

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: dict[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status = RpcStatus(code, message, reason, {"error": reason, **(metadata or {})}, retry_after)


#: The Connect protocol's error code of every gRPC status code but OK (same codes, snake_case names;
#: Connect spells ``CANCELLED`` as ``canceled``).
CONNECT_CODES: dict[grpc.StatusCode, str] = {
    code: ("canceled" if code is grpc.StatusCode.CANCELLED else code.name.lower())
    for code in grpc.StatusCode
    if code is not grpc.StatusCode.OK
}


def connect_code(code: grpc.StatusCode) -> str:
    """The Connect error code of a gRPC status code, e.g. ``invalid_argument``."""
    return CONNECT_CODES.get(code, "unknown")


def status_details(trailing_metadata: Any) -> list[any_pb2.Any]:
    """The details (``google.protobuf.Any``: ErrorInfo, RetryInfo, ...) packed in a status's
    ``grpc-status-details-bin`` trailing metadata; empty when there is none."""
    for key, value in trailing_metadata or ():
        if key == rpc_status.GRPC_DETAILS_METADATA_KEY and isinstance(value, bytes):
            status = status_pb2.Status()
            status.ParseFromString(value)
            return list(status.details)
    return []


def status_for(error: GriotError | StatusError) -> RpcStatus:
    """The status a server answers a Griot error (or a :class:`StatusError`) with."""
    if isinstance(error, StatusError):
        return error.status
    message = str(error)
    if isinstance(error, IllegalMoveError):
        code = getattr(error, "code", None) or "illegal_move"
        meta = {"error": "illegal_move"}
        if getattr(error, "move", None):
            meta["move"] = error.move  # type: ignore[attr-defined]
        return RpcStatus(grpc.StatusCode.INVALID_ARGUMENT, message, code, meta)
    if isinstance(error, HistoryError):
        meta = {"error": "history"}
        if error.index is not None:
            meta["index"] = str(error.index)
        return RpcStatus(grpc.StatusCode.INVALID_ARGUMENT, message, "bad_history", meta)
    if isinstance(error, UnknownVariantError):
        return RpcStatus(grpc.StatusCode.NOT_FOUND, message, "unknown_variant", {"error": "unknown_variant"})
    if isinstance(error, RuleFileError):
        meta = {"error": "rule_file"}
        if getattr(error, "field", None):
            meta["field"] = error.field or ""
        return RpcStatus(grpc.StatusCode.INVALID_ARGUMENT, message, "bad_rule_file", meta)
    if isinstance(error, VariantError):
        option = getattr(error, "option", None)
        if option:
            meta = {"error": "variant", "option": option}
            return RpcStatus(grpc.StatusCode.INVALID_ARGUMENT, message, "bad_option", meta)
        return RpcStatus(grpc.StatusCode.INVALID_ARGUMENT, message, "bad_variant", {"error": "variant"})
    if isinstance(error, NotationError):
        return RpcStatus(grpc.StatusCode.INVALID_ARGUMENT, message, "bad_notation", {"error": "notation"})
    return RpcStatus(grpc.StatusCode.INVALID_ARGUMENT, message, "bad_input", {"error": "griot"})


_ERROR_CLASSES: dict[str, type[GriotError]] = {
    "notation": NotationError,
    "variant": VariantError,
    "unknown_variant": UnknownVariantError,
    "rule_file": RuleFileError,
    "illegal_move": IllegalMoveError,
    "history": HistoryError,
    "griot": GriotError,
}


def retry_delay(call: grpc.RpcError | grpc.Call) -> float | None:
    """Seconds the server asked to wait before retrying (its ``google.rpc.RetryInfo``), if any."""
    status = _status_of(call)
    for detail in status.details if status is not None else ():
        if detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            info = error_details_pb2.RetryInfo()
            detail.Unpack(info)
            return float(info.retry_delay.ToMilliseconds()) / 1000.0
    return None


def error_info(call: grpc.RpcError | grpc.Call) -> error_details_pb2.ErrorInfo | None:
    """The ``ErrorInfo`` detail of a failed call, if it has one."""
    status = _status_of(call)
    if status is None:
        return None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info
    return None


def _status_of(call: grpc.RpcError | grpc.Call) -> status_pb2.Status | None:
    metadata: Any = call.trailing_metadata()
    for key, value in metadata or ():
        if key == rpc_status.GRPC_DETAILS_METADATA_KEY and isinstance(value, bytes):
            status = status_pb2.Status()
            status.ParseFromString(value)
            return status
    return None


def error_from_rpc(call: grpc.RpcError | grpc.Call) -> GriotError | None:
    """The Griot exception a failed call stands for, or None if it is not a Griot input error.

    Only errors with an ErrorInfo of domain :data:`ERROR_DOMAIN` map back; anything else (an
    unavailable server, a deadline, an internal error) is left to the caller.
    """
    info = error_info(call)
    if info is None or info.domain != ERROR_DOMAIN:
        return None
    cls = _ERROR_CLASSES.get(info.metadata.get("error", ""))
    if cls is None:
        return None
    err = cls(call.details() or "")
    if isinstance(err, HistoryError) and info.metadata.get("index", "").isdigit():
        err.index = int(info.metadata["index"])
    if cls is IllegalMoveError:
        err.code = info.reason
    if "option" in info.metadata:
        err.option = info.metadata["option"]
    if "move" in info.metadata:
        err.move = info.metadata["move"]  # type: ignore[attr-defined]
    if "field" in info.metadata:
        err.field = info.metadata["field"]
    return err
