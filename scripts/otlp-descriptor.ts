// `npm run otlp:descriptor`: compiles the vendored OTLP .proto files (collectors/otlp-traces/proto, from
// open-telemetry/opentelemetry-proto v1.9.0) into the protobufjs JSON descriptor the receiver decodes with
// (collectors/otlp-traces/descriptor.json). A JSON module bundles into the server like any import, where reading
// .proto files at run time would depend on the working directory. tests/unit/collectors/otlp-traces.test.ts fails
// when the committed descriptor differs from what this script writes.
import { writeFileSync } from "node:fs";
import path from "node:path";
import protobuf from "protobufjs";

export const PROTO_DIR = path.join(import.meta.dirname, "..", "collectors", "otlp-traces", "proto");
export const DESCRIPTOR = path.join(import.meta.dirname, "..", "collectors", "otlp-traces", "descriptor.json");
const ENTRY = "opentelemetry/proto/collector/trace/v1/trace_service.proto";

/** The descriptor's text: stable key order, no comments, a trailing newline. */
export function compileDescriptor(): string {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target);
  root.loadSync(ENTRY, { keepCase: false });
  return `${JSON.stringify(root.toJSON({ keepComments: false }), null, 1)}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  writeFileSync(DESCRIPTOR, compileDescriptor());
  console.log(`wrote ${path.relative(process.cwd(), DESCRIPTOR)}`);
}
