"""gRPC server reflection, v1 and v1alpha, serving our .proto files with their comments.

grpcio-reflection serves only v1alpha, and from descriptors that the generated *_pb2.py files
hold without source info, so `grpcurl describe` would show no comment. This servicer answers from
the descriptor set `make proto` writes with source info (croupier/v1/descriptors.binpb) and falls
back to the default pool for other files (health, v1alpha reflection). The v1 and v1alpha messages
are the same on the wire, so one implementation serves both names; grpcio-reflection ships no v1
descriptor, so v1's file is v1alpha's under v1's names (`buf curl --list-methods` and `grpcurl
describe` ask for every service listed, v1's included).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Iterable
from importlib import resources

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, text_format
from google.protobuf.descriptor import FileDescriptor
from google.protobuf.descriptor_pool import DescriptorPool as Pool
from grpc_reflection.v1alpha import reflection_pb2 as pb

V1 = "grpc.reflection.v1.ServerReflection"
V1ALPHA = "grpc.reflection.v1alpha.ServerReflection"
_METHOD = "ServerReflectionInfo"


def _with_source_info() -> dict[str, bytes]:
    """Our files' FileDescriptorProtos, comments included, by file name."""
    data = resources.files("croupier.v1").joinpath("descriptors.binpb").read_bytes()
    files = descriptor_pb2.FileDescriptorSet.FromString(data).file
    return {file.name: file.SerializeToString() for file in files}


def _v1_reflection() -> Pool:
    """A pool holding grpc/reflection/v1/reflection.proto: v1alpha's file renamed, field for
    field what v1's .proto declares (v1alpha's `deprecated` option dropped)."""
    proto = descriptor_pb2.FileDescriptorProto()
    pb.DESCRIPTOR.CopyToProto(proto)
    renamed = text_format.MessageToString(proto).replace("v1alpha", "v1")
    v1 = text_format.Parse(renamed, descriptor_pb2.FileDescriptorProto())
    v1.name = "grpc/reflection/v1/reflection.proto"
    v1.options.ClearField("deprecated")
    pool = Pool()
    pool.Add(v1)
    return pool


class ReflectionServicer:
    """Answers ServerReflectionInfo streams (either version) for `services`."""

    def __init__(self, services: Iterable[str]) -> None:
        self.services = sorted(services)
        self.pools = (descriptor_pool.Default(), _v1_reflection())
        self.commented = _with_source_info()

    def _file(self, find: Callable[[Pool], FileDescriptor]) -> FileDescriptor:
        """What `find` returns from the first pool that has it; KeyError when none has."""
        for pool in self.pools:
            with contextlib.suppress(KeyError):
                return find(pool)
        raise KeyError("no pool has it")

    def _serialized(self, file: FileDescriptor) -> bytes:
        if file.name in self.commented:
            return self.commented[file.name]
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        return proto.SerializeToString()

    def _files(self, file: FileDescriptor) -> pb.FileDescriptorResponse:
        """The file and everything it imports, the file first (as grpcio-reflection does)."""
        seen: dict[str, FileDescriptor] = {}
        pending = [file]
        while pending:
            current = pending.pop()
            if current.name not in seen:
                seen[current.name] = current
                pending.extend(current.dependencies)
        return pb.FileDescriptorResponse(
            file_descriptor_proto=[self._serialized(f) for f in seen.values()]
        )

    def answer(self, request: pb.ServerReflectionRequest) -> pb.ServerReflectionResponse:
        response = pb.ServerReflectionResponse(original_request=request)
        kind = request.WhichOneof("message_request")
        try:
            if kind == "list_services":
                response.list_services_response.service.extend(
                    pb.ServiceResponse(name=name) for name in self.services
                )
            elif kind == "file_by_filename":
                name = request.file_by_filename
                file = self._file(lambda pool: pool.FindFileByName(name))
                response.file_descriptor_response.CopyFrom(self._files(file))
            elif kind == "file_containing_symbol":
                symbol = request.file_containing_symbol
                file = self._file(lambda pool: pool.FindFileContainingSymbol(symbol))
                response.file_descriptor_response.CopyFrom(self._files(file))
            elif kind == "all_extension_numbers_of_type":
                pool = self.pools[0]  # only our messages: v1 reflection's have no extensions
                message = pool.FindMessageTypeByName(request.all_extension_numbers_of_type)
                numbers = sorted(e.number for e in pool.FindAllExtensions(message))
                response.all_extension_numbers_response.base_type_name = message.full_name
                response.all_extension_numbers_response.extension_number.extend(numbers)
            else:  # file_containing_extension: we define no extensions
                return _not_found(response, kind)
        except KeyError:
            return _not_found(response, kind)
        return response

    async def info(
        self, requests: AsyncIterator[pb.ServerReflectionRequest], context: object
    ) -> AsyncIterator[pb.ServerReflectionResponse]:
        async for request in requests:
            yield self.answer(request)

    def handlers(self) -> tuple[grpc.GenericRpcHandler, ...]:
        method = grpc.stream_stream_rpc_method_handler(
            self.info,
            request_deserializer=pb.ServerReflectionRequest.FromString,
            response_serializer=pb.ServerReflectionResponse.SerializeToString,
        )
        return tuple(
            grpc.method_handlers_generic_handler(name, {_METHOD: method}) for name in (V1, V1ALPHA)
        )


def _not_found(
    response: pb.ServerReflectionResponse, kind: str | None
) -> pb.ServerReflectionResponse:
    response.error_response.error_code = grpc.StatusCode.NOT_FOUND.value[0]
    response.error_response.error_message = f"not found: {kind!r}"
    return response
