import { config } from "zod";

/*
 * The rule form builds the kinds' schemas in the browser, and the pages run under a Content-Security-Policy without
 * 'unsafe-eval' (lib/security/headers.ts). zod probes for eval when it builds an object schema, and the browser
 * reports the probe as a violation even though zod catches it: in the browser zod runs without its compiled fast
 * path, as its `jitless` setting is for. The server keeps the fast path (ingest validates every event with zod).
 */
if (typeof window !== "undefined") config({ jitless: true });
