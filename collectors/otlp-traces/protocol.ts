import protobuf from "protobufjs";
import descriptor from "./descriptor.json" with { type: "json" };

/**
 * The OTLP/HTTP trace messages, from the official .proto files (proto/, compiled into descriptor.json by
 * `npm run otlp:descriptor`), and google.rpc.Status, the error body OTLP/HTTP answers with.
 */

// The descriptor is protobufjs' own JSON form of the .proto files; its literal type is narrower than INamespace.
const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);

export const ExportTraceServiceRequest = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");
export const ExportTraceServiceResponse = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse");

/**
 * google.rpc.Status (googleapis google/rpc/status.proto): code = 1, message = 2, details = 3. The details (Any
 * messages) are never sent here, so the type leaves them out.
 */
export const Status = new protobuf.Type("Status").add(new protobuf.Field("code", 1, "int32")).add(new protobuf.Field("message", 2, "string"));
new protobuf.Root().define("google.rpc").add(Status);

/** google.rpc.Code values OTLP/HTTP answers use. */
export const RPC_CODE = { INVALID_ARGUMENT: 3, UNAUTHENTICATED: 16, RESOURCE_EXHAUSTED: 8, UNAVAILABLE: 14, INTERNAL: 13 } as const;
