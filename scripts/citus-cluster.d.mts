/** Types of citus-cluster.mjs, for the tests on the Citus test cluster. */
export const CITUS_TARBALL: string;
/** TEST_CITUS_URL, else the coordinator `npm run setup:test` starts. */
export function citusUrl(): string;
/** Whether a cluster must answer: TEST_CITUS_URL is set, or the vendored Citus source is in the checkout. */
export function citusExpected(): boolean;
/** The URL with its password masked, for messages. */
export function redactUrl(url: string): string;
/** Why the cluster at `url` cannot serve the tests (no answer, no extension, a worker down, not two workers), or undefined. */
export function citusProblem(url?: string): Promise<string | undefined>;
