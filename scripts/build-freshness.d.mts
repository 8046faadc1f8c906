/** Types of build-freshness.mjs, for the TypeScript scripts that build when the sources changed (screenshots.ts). */
export function buildIsFresh(root?: string): boolean;
