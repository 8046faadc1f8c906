/** No events for the business key asked about: said plainly, exit 1. Here so main.ts knows it without loading diagnose.ts. */
export class KeyNotFoundError extends Error {}
