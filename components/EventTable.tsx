import { DataTable, type Column } from "@/components/DataTable.tsx";
import type { NormalizedEvent } from "@/lib/events/model.ts";
import { formatDuration } from "@/lib/format/duration.ts";
import { formatTime } from "@/lib/format/time.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import type { ContextAnchor } from "@/lib/views/context-rows.ts";

type Words = Dictionary["eventsTable"];

const yesNo = (value: boolean | null, w: Words) => (value === null ? "" : value ? w.yes : w.no);
const text = (value: string | number | null | undefined) => (value === null || value === undefined ? undefined : String(value));

/**
 * Raw events, one row each, under their event-model field names. Each row is the target of the timeline's marks
 * (`#ev-<id>`) and unfolds the event's detail: the collector's record (trace record, log template, broker line).
 * When, what, where and which message stay in sight; the delivery counters and the record fold first. Context
 * lines (`anchors`) also say how far each is from the key's event it was read around.
 */
export function EventTable({
  events,
  recordLabel,
  words,
  more,
  testId = "events",
  anchors,
  locale,
}: {
  events: NormalizedEvent[];
  recordLabel: string;
  words: Words;
  more: string;
  testId?: string;
  anchors?: (e: NormalizedEvent) => ContextAnchor | undefined;
  locale: Locale;
}) {
  const c = words.cols;
  const fromKey: Column<NormalizedEvent>[] = anchors
    ? [
        {
          id: "fromKey",
          header: c.fromKey,
          wrap: "text",
          title: (e) => {
            const a = anchors(e);
            return a && words.fromKeyTitle(words.kinds[a.event.kind], formatTime(a.event.ts, { precision: a.event.tsPrecision }));
          },
          cell: (e) => {
            const a = anchors(e);
            return a && words.fromKey(formatDuration(Math.abs(a.offsetMs), locale), a.offsetMs < 0);
          },
        },
      ]
    : [];
  const columns: Column<NormalizedEvent>[] = [
    {
      id: "time",
      header: c.time,
      mono: true,
      wrap: "text",
      cellId: (e) => `ev-${e.id}`,
      title: (e) => `${e.ts} (${words.precision[e.tsPrecision]})`,
      cell: (e) => formatTime(e.ts, { precision: e.tsPrecision }),
    },
    ...fromKey,
    { id: "kind", header: c.kind, title: (e) => e.kind, cell: (e) => words.kinds[e.kind] },
    { id: "instance", data: true, header: c.instance, mono: true, wrap: "id", minWidth: "16ch", title: (e) => text(e.instance), cell: (e) => e.instance },
    { id: "group", data: true, header: c.group, mono: true, cell: (e) => e.group },
    { id: "topic", data: true, header: c.topic, mono: true, wrap: "id", priority: 2, title: (e) => text(e.topic), cell: (e) => e.topic },
    { id: "queue", data: true, header: c.queue, mono: true, wrap: "id", priority: 2, title: (e) => text(e.queue), cell: (e) => e.queue },
    { id: "offset", header: c.offset, mono: true, priority: 3, cell: (e) => e.queueOffset },
    { id: "msgId", data: true, header: c.msgId, mono: true, wrap: "id", minWidth: "12ch", title: (e) => text(e.msgId), cell: (e) => e.msgId },
    { id: "offsetMsgId", data: true, header: c.offsetMsgId, mono: true, wrap: "id", minWidth: "12ch", priority: 3, title: (e) => text(e.offsetMsgId), cell: (e) => e.offsetMsgId },
    { id: "retry", header: c.retry, priority: 3, cell: (e) => e.retryTimes },
    { id: "redelivered", header: c.redelivered, priority: 3, cell: (e) => yesNo(e.redelivered, words) },
    { id: "success", header: c.success, priority: 3, cell: (e) => yesNo(e.success, words) },
    {
      id: "source",
      data: true,
      header: c.source,
      mono: true,
      wrap: "id",
      priority: 2,
      cell: (e) => (
        <details className="raw">
          <summary>{e.source}</summary>
          <span className="muted">
            {recordLabel} <code>{e.id}</code>
          </span>
          <pre>{JSON.stringify(e.detail, null, 2)}</pre>
        </details>
      ),
    },
  ];
  return <DataTable columns={columns} rows={events} rowKey={(e) => e.id} more={more} testId={testId} />;
}
