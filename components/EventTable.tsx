import type { NormalizedEvent } from "@/lib/events/model.ts";
import { formatTime } from "@/lib/format/time.ts";

const yesNo = (value: boolean | null) => (value === null ? "" : value ? "yes" : "no");

/**
 * Raw events, one row each, under their event-model field names. Each row is the target of the timeline's marks
 * (`#ev-<id>`) and unfolds the event's detail: the collector's record (trace record, log template, broker line).
 */
export function EventTable({ events, recordLabel }: { events: NormalizedEvent[]; recordLabel: string }) {
  return (
    <div className="table-wrap">
      <table className="events">
        <thead>
          <tr>
            <th scope="col">time (UTC)</th>
            <th scope="col">kind</th>
            <th scope="col">instance</th>
            <th scope="col">group</th>
            <th scope="col">topic</th>
            <th scope="col">queue</th>
            <th scope="col">offset</th>
            <th scope="col">msgId</th>
            <th scope="col">offsetMsgId</th>
            <th scope="col">retry</th>
            <th scope="col">redelivered</th>
            <th scope="col">success</th>
            <th scope="col">source</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.id}>
              <td id={`ev-${e.id}`} className="mono" title={`${e.ts} (${e.tsPrecision} precision)`}>
                {formatTime(e.ts, { precision: e.tsPrecision })}
              </td>
              <td>{e.kind}</td>
              <td className="mono">{e.instance}</td>
              <td>{e.group}</td>
              <td>{e.topic}</td>
              <td className="mono">{e.queue}</td>
              <td className="mono">{e.queueOffset}</td>
              <td className="mono">{e.msgId}</td>
              <td className="mono">{e.offsetMsgId}</td>
              <td>{e.retryTimes}</td>
              <td>{yesNo(e.redelivered)}</td>
              <td>{yesNo(e.success)}</td>
              <td className="mono raw">
                <details>
                  <summary>{e.source}</summary>
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
