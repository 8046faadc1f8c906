import type { ReactNode } from "react";

/**
 * A group page's lanes, the first `open` of them drawn and the rest behind a disclosure that opens to every one of
 * them, on the same axis: a busy group has dozens of processes and members, and all of them drawn made the page
 * thousands of pixels long before its incidents and history.
 */
export function LaneFold({ lanes, open, summary }: { lanes: ReactNode[]; open: number; summary: (folded: number) => string }) {
  const rest = lanes.slice(open);
  return (
    <>
      {lanes.slice(0, open)}
      {rest.length > 0 ? (
        <details className="lane-fold" data-testid="lane-fold">
          <summary>{summary(rest.length)}</summary>
          {rest}
        </details>
      ) : null}
    </>
  );
}
