import Link from "next/link";
import type { ReactNode } from "react";

/** Lanes a section draws, open and folded, unless the page is asked for all of them (`all`). */
export const DRAWN_LANES = 40;

/** The page with every lane (`href`, to the section's heading), and whether this is it (`drawn`). */
export interface LaneFoldAll {
  href: string;
  drawn: boolean;
}

/**
 * A group page's lanes, the first `open` of them drawn and the rest behind a disclosure, on the same axis: a busy
 * group has dozens of processes and members, and all of them drawn made the page thousands of pixels long before
 * its incidents and history. Past DRAWN_LANES the disclosure ends in a link to the page with every lane, its folds
 * open at the section: drawn by default, the 258 lanes of the bench store's busiest group over a day made 880 KB of
 * HTML and 1.6 times the server time.
 */
export function LaneFold({
  lanes,
  open,
  summary,
  all,
}: {
  lanes: ReactNode[];
  open: number;
  summary: (folded: number) => string;
  all: LaneFoldAll & { text: (total: number) => string };
}) {
  const rest = lanes.slice(open, all.drawn ? undefined : DRAWN_LANES);
  return (
    <>
      {lanes.slice(0, open)}
      {lanes.length > open ? (
        <details className="lane-fold" data-testid="lane-fold" open={all.drawn}>
          <summary>{summary(lanes.length - open)}</summary>
          {rest}
          {open + rest.length < lanes.length ? (
            <p className="muted note lane-all">
              <Link href={all.href}>{all.text(lanes.length)}</Link>
            </p>
          ) : null}
        </details>
      ) : null}
    </>
  );
}
