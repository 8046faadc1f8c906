import { receiveTraces } from "@/lib/api/otlp.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

/** The OTLP/HTTP trace path, so an exporter's default `<endpoint>/v1/traces` reaches the receiver (docs/otel.md). */
export const POST = (request: Request) => receiveTraces(request, getStore);
