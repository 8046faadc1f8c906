import type { NormalizedEvent } from "@/lib/events/model.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";

type Words = Dictionary["eventsTable"];

const yesNo = (value: boolean | null, w: Words) => (value === null ? "" : value ? w.yes : w.no);

/**
 * Raw events, one row each, under their event-model field names. Each row is the target of the timeline's marks
 * (`#ev-<id>`) and unfolds the event's detail: the collector's record (trace record, log template, broker line).
 */
export function EventTable({ events, recordLabel, words }: { events: NormalizedEvent[]; recordLabel: string; words: Words }) {
  const c = words.cols;
  return (
    <div className="table-wrap">
      <table className="events">
        <thead>
          <tr>
            {[c.time, c.kind, c.instance, c.group, c.topic, c.queue, c.offset, c.msgId, c.offsetMsgId, c.retry, c.redelivered, c.success, c.source].map((label) => (
              <th key={label} scope="col">
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.id}>
              <td id={`ev-${e.id}`} className="mono" title={`${e.ts} (${words.precision[e.tsPrecision]})`}>
                {formatTime(e.ts, { precision: e.tsPrecision })}
              </td>
              <td title={e.kind}>{words.kinds[e.kind]}</td>
              <td className="mono" translate="no">
                {e.instance}
              </td>
              <td className="mono" translate="no">
                {e.group}
              </td>
              <td className="mono" translate="no">
                {e.topic}
              </td>
              <td className="mono" translate="no">
                {e.queue}
              </td>
              <td className="mono">{e.queueOffset}</td>
              <td className="mono" translate="no">
                {e.msgId}
              </td>
              <td className="mono" translate="no">
                {e.offsetMsgId}
              </td>
              <td>{e.retryTimes}</td>
              <td>{yesNo(e.redelivered, words)}</td>
              <td>{yesNo(e.success, words)}</td>
              <td className="mono raw">
                <details>
                  <summary translate="no">{e.source}</summary>
                  <span className="muted">
                    {recordLabel} <code>{e.id}</code>
                  </span>
                  <pre>{JSON.stringify(e.detail, null, 2)}</pre>
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
