/**
 * The columns group_members and group_holdings share: when an interval began and ended, by which lines, and whether
 * its first line is still stored (SINCE_RAW). bigint columns arrive as strings from pg and as numbers from PGlite.
 */
export interface IntervalSpanRow<ClosedBy extends string> {
  since_ts: string | number | null;
  since_event: string | null;
  since_coarse: boolean;
  until_ts: string | number | null;
  until_event: string | null;
  closed_by: ClosedBy | null;
  since_raw: boolean;
}

const num = (v: string | number | null) => (v === null ? null : Number(v));

export function spanOfRow<ClosedBy extends string>(r: IntervalSpanRow<ClosedBy>) {
  return {
    since: num(r.since_ts),
    sinceEvent: r.since_event,
    sinceCoarse: r.since_coarse,
    until: num(r.until_ts),
    untilEvent: r.until_event,
    closedBy: r.closed_by,
    sinceRaw: r.since_raw,
  };
}
