/** Types of next.mjs, for the TypeScript scripts that build and serve the dashboard (screenshots.ts). */
import type { ChildProcess, StdioOptions } from "node:child_process";

export function nextEnv(extra?: Record<string, string>): NodeJS.ProcessEnv;
export function buildSync(): void;
export function startServer(args: string[], env?: Record<string, string>, stdio?: StdioOptions): ChildProcess;
