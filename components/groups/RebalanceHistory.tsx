import Link from "next/link";
import { formatTime } from "@/lib/format/time.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import type { HistoryPage, QueueMove } from "@/lib/groups/rebalance-history.ts";

const utc = (ts: number) => formatTime(ts, { precision: "s" });
/** Moves listed per episode before the rest fold into their own disclosure. */
const SHOWN_MOVES = 12;

function Moves({ moves, t }: { moves: QueueMove[]; t: Dictionary }) {
  const names = (list: string[]) => (list.length === 0 ? t.groups.nobody : list.join(", "));
  return (
    <ul className="moves">
      {moves.map((m) => (
        <li key={`${m.topic}@${m.queue}`} className="mono">
          {t.groups.move(m.topic ? `${m.topic}@${m.queue}` : m.queue, names(m.from), names(m.to))}
        </li>
      ))}
    </ul>
  );
}

/**
 * One page of rebalance episodes, newest first, each unfolding to the queues that changed owner ("broker-a:3 moved
 * from A to B"), with links to the newer and older pages (`pageHref`), so every episode of the range is reachable;
 * the newest of the first page is open.
 */
export function RebalanceHistory({ history, pageHref, t }: { history: HistoryPage; pageHref: (page: number) => string; t: Dictionary }) {
  return (
    <>
      {history.pages > 1 ? <p className="muted note">{t.groups.historyPage(history.first, history.last, history.total)}</p> : null}
      <ol className="history" start={history.first}>
        {history.episodes.map((e, i) => (
          <li key={e.start} id={`episode-${e.start}`} data-testid="rebalance-episode">
            <details open={history.page === 1 && i === 0}>
              <summary>
                <span className="mono">{utc(e.start)} UTC</span> · {t.groups.episodeMoves(e.moves.length, e.lines)} · <span className="mono" translate="no">
                  {e.instances.join(", ")}
                </span>
              </summary>
              {e.moves.length > 0 ? <Moves moves={e.moves.slice(0, SHOWN_MOVES)} t={t} /> : null}
              {e.moves.length > SHOWN_MOVES ? (
                <details className="more-moves">
                  <summary>{t.groups.moreMoves(e.moves.length - SHOWN_MOVES)}</summary>
                  <Moves moves={e.moves.slice(SHOWN_MOVES)} t={t} />
                </details>
              ) : null}
            </details>
          </li>
        ))}
      </ol>
      {history.pages > 1 ? (
        <nav className="pager" aria-label={t.groups.history} data-testid="history-pager">
          {history.page > 1 ? <Link href={pageHref(history.page - 1)}>{t.groups.newer}</Link> : null}
          {history.page < history.pages ? <Link href={pageHref(history.page + 1)}>{t.groups.older}</Link> : null}
        </nav>
      ) : null}
    </>
  );
}
