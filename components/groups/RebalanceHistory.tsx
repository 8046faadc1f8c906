import { formatTime } from "@/lib/format/time.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import type { RebalanceEpisode } from "@/lib/groups/rebalance-history.ts";

const utc = (ts: number) => formatTime(ts, { precision: "s" });
/** Moves listed per episode, and episodes listed, before "and N more". */
const SHOWN_MOVES = 12;
const SHOWN_EPISODES = 40;

/**
 * Rebalance episodes, newest first, each unfolding to the queues that changed owner ("broker-a:3 moved from A to
 * B"); the newest is open.
 */
export function RebalanceHistory({ episodes, t }: { episodes: RebalanceEpisode[]; t: Dictionary }) {
  const names = (list: string[]) => (list.length === 0 ? t.groups.nobody : list.join(", "));
  const newest = [...episodes].reverse().slice(0, SHOWN_EPISODES);
  return (
    <>
      <ol className="history">
        {newest.map((e, i) => (
          <li key={e.start} id={`episode-${e.start}`} data-testid="rebalance-episode">
            <details open={i === 0}>
              <summary>
                <span className="mono">{utc(e.start)} UTC</span> · {t.groups.episodeMoves(e.moves.length)} · <span className="mono">{e.instances.join(", ")}</span>
              </summary>
              {e.moves.length > 0 ? (
                <ul className="moves">
                  {e.moves.slice(0, SHOWN_MOVES).map((m) => (
                    <li key={`${m.topic}@${m.queue}`} className="mono">
                      {t.groups.move(m.topic ? `${m.topic}@${m.queue}` : m.queue, names(m.from), names(m.to))}
                    </li>
                  ))}
                  {e.moves.length > SHOWN_MOVES ? <li className="muted">{t.groups.more(e.moves.length - SHOWN_MOVES)}</li> : null}
                </ul>
              ) : null}
            </details>
          </li>
        ))}
      </ol>
      {episodes.length > SHOWN_EPISODES ? <p className="muted">{t.groups.more(episodes.length - SHOWN_EPISODES)}</p> : null}
    </>
  );
}
