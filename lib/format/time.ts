import type { TsPrecision } from "../events/model.ts";

/** UTC with the precision the source had: a broker log stamped to the second must not look like it had ms. */
export function formatTs(ts: number, precision: TsPrecision): string {
  const iso = new Date(ts).toISOString();
  const day = iso.slice(0, 10);
  const time = precision === "s" ? iso.slice(11, 19) : iso.slice(11, 23);
  return `${day} ${time}`;
}
