import type { DetailValue } from "../../lib/events/model.ts";

/** An event's detail without the fields a line did not have: the store keeps no `undefined`, and JSON drops them. */
export function compact(detail: { [key: string]: DetailValue | undefined }): { [key: string]: DetailValue } {
  return Object.fromEntries(Object.entries(detail).filter(([, value]) => value !== undefined)) as { [key: string]: DetailValue };
}
