import { formatDuration } from "@/lib/format/duration.ts";
import { formatTime } from "@/lib/format/time.ts";
import { describeClockSkew } from "@/lib/i18n/diagnosis-text.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import { focusScale } from "@/lib/timeline/scale.ts";
import type { ConsumeSpan, Lane, Mark, MarkKind, Timeline as TimelineData } from "@/lib/timeline/to-lanes.ts";
import { placeAxisLabels } from "./axis-labels.ts";
import { laneName } from "./lane-name.ts";

/**
 * Draws a key's swim lanes (lib/timeline/to-lanes.ts) on a time scale (lib/timeline/scale.ts) that cuts long
 * empty stretches out: HTML boxes placed by percentage, so text stays crisp at any width and every mark is a link
 * to its raw event (keyboard reachable, with its description as the accessible name). Shapes differ per kind, so
 * color is never the only cue.
 */

const SYMBOLS: Record<MarkKind, string> = {
  publish: "▲",
  send: "↻",
  ack: "✓",
  dedup_pass: "○",
  dedup_hit: "⊘",
  dedup_released: "↺",
  effect: "★",
  effect_failed: "✗",
  row: "▤",
  rebalance: "⇄",
  joined: "⊕",
  left: "⊖",
  vanished: "⚡",
  lifecycle: "•",
  transaction: "◇",
  deliver: "↓",
  redeliver: "⇊",
  dead_letter: "☠",
  shovel: "↪",
  closed: "⊗",
};

const pct = (x: number) => `${(x * 100).toFixed(3)}%`;
const utc = (ts: number) => formatTime(ts, { date: "none" });

/** Marks closer than this share of the track are staggered up and down so both stay clickable. */
const CROWDED = 0.012;

function stagger(marks: Mark[], position: (ts: number) => number): number[] {
  let previous = -1;
  let row = 0;
  return marks.map((m) => {
    const x = position(m.ts);
    row = x - previous < CROWDED ? (row + 1) % 3 : 0;
    previous = x;
    return row;
  });
}

export function Timeline({ data, t, locale }: { data: TimelineData; t: Dictionary; locale: Locale }) {
  const scale = focusScale(data.lanes.flatMap((l) => [...l.spans.flatMap((s) => (s.end === null ? [s.start] : [s.start, s.end])), ...l.marks.map((m) => m.ts)]));
  // A business-table row is stamped by the database's clock, not by a process's: said on every one.
  const markText = (m: Mark) => `${t.timeline.marks[m.kind]}${m.note ? ` (${m.note})` : ""} · ${utc(m.ts)} UTC${m.kind === "row" ? ` · ${t.timeline.databaseClock}` : ""}`;
  const spanText = (s: ConsumeSpan, lane: Lane) =>
    [
      `${t.timeline.consume} ${s.deliveryId}`,
      laneName(lane, t),
      s.redelivered ? t.timeline.marks.redeliver : null,
      s.retryTimes ? t.timeline.retry(s.retryTimes) : null,
      s.direct ? t.timeline.direct : null,
      t.timeline.statuses[s.status],
      s.end === null ? t.timeline.open : formatDuration(s.end - s.start, locale),
      `${utc(s.start)} UTC`,
    ]
      .filter(Boolean)
      .join(" · ");
  const gapLines = [...new Set(data.gaps.flatMap((g) => [g.from, g.to]))];
  const axisLabels = placeAxisLabels(
    scale.ticks(6).map((tick) => ({ text: `+${formatDuration(tick.offsetMs, locale)}`, position: tick.position, burst: tick.burst })),
    scale.breaks.map((b) => b.position),
  );
  return (
    <div className="timeline" data-testid="timeline">
      <div className="tl-inner">
        <div className="tl-body" style={{ position: "relative" }}>
          {data.lanes.map((lane) => {
            const rows = stagger(lane.marks, scale.position);
            return (
              <div key={lane.id} className="tl-lane" data-lane={lane.role} data-instance={lane.label}>
                <div className="tl-label">
                  <span className="role">
                    {t.timeline.lanes[lane.role]}
                    {lane.groups.length > 0 ? ` · ${lane.groups.join(", ")}` : ""}
                  </span>
                  <span className="mono" title={lane.channel === null ? undefined : lane.label}>
                    {laneName(lane, t)}
                  </span>
                  {lane.role === "table" ? <span className="role clock">{t.timeline.databaseClock}</span> : null}
                </div>
                <div className="tl-track">
                  {lane.spans.map((s) => {
                    const x1 = scale.position(s.start);
                    const x2 = s.end === null ? Math.min(1, x1 + 0.02) : scale.position(s.end);
                    return (
                      <a
                        key={s.deliveryId}
                        href={`#ev-${s.eventId}`}
                        className={`tl-span ${s.status}${s.end === null ? " open" : ""}`}
                        style={{ left: pct(x1), width: pct(Math.max(x2 - x1, 0)) }}
                        title={spanText(s, lane)}
                        aria-label={spanText(s, lane)}
                      />
                    );
                  })}
                  {lane.marks.map((m, i) => (
                    <a
                      key={`${m.eventId}-${i}`}
                      href={`#ev-${m.eventId}`}
                      className={`tl-mark k-${m.kind}${m.context ? " context" : ""}`}
                      style={{ left: pct(scale.position(m.ts)), top: `${0.55 + (rows[i] === 1 ? -0.5 : rows[i] === 2 ? 0.5 : 0)}rem` }}
                      title={markText(m)}
                      aria-label={markText(m)}
                    >
                      <span aria-hidden="true">{SYMBOLS[m.kind]}</span>
                    </a>
                  ))}
                </div>
              </div>
            );
          })}
          <div className="tl-overlay" aria-hidden="true">
            {scale.breaks.map((b) => (
              <div key={b.position} className="tl-break" style={{ left: pct(b.position) }} />
            ))}
            {gapLines.map((ts) => (
              <div key={ts} className="tl-gapline" style={{ left: pct(scale.position(ts)) }} />
            ))}
          </div>
        </div>
        {data.gaps.map((g) => {
          const x1 = scale.position(Math.min(g.from, g.to));
          const x2 = scale.position(Math.max(g.from, g.to));
          const label = t.timeline.gapBetween(g.deliveries[0], g.deliveries[1], formatDuration(g.gapMs, locale));
          return (
            <div key={`${g.duplicate}`} className="tl-gaprow" data-testid="timeline-gap" data-clock-skew={g.clockSkewMs > 0 || undefined}>
              <div className="tl-label muted">{t.timeline.gap}</div>
              <div className="tl-track">
                <div className="tl-gap" style={{ left: pct(x1), width: pct(x2 - x1) }} />
                <div className="tl-gap-label" style={{ left: pct((x1 + x2) / 2) }}>
                  {label}
                </div>
              </div>
            </div>
          );
        })}
        <div className={`tl-axis${axisLabels.some((l) => l.row === 1) ? " two-rows" : ""}`} aria-hidden="true">
          <div className="tl-label muted mono">{utc(data.start)}</div>
          <div className="tl-track">
            {axisLabels.map((label) => (
              <span key={label.position} className={`tl-tick ${label.anchor}${label.row === 1 ? " row2" : ""}`} style={{ left: pct(label.position) }}>
                {label.text}
              </span>
            ))}
            {scale.breaks.map((b) => (
              <span key={b.position} className="tl-break-label" style={{ left: pct(b.position) }} title={t.timeline.skipped(formatDuration(b.skippedMs, locale))}>
                ≈
              </span>
            ))}
          </div>
        </div>
      </div>
      {data.gaps
        .filter((g) => g.clockSkewMs > 0)
        .map((g) => (
          <p key={g.duplicate} className="muted note" data-testid="timeline-gap-skew">
            {t.timeline.drawnBeforeFirst(g.deliveries[1], g.deliveries[0], describeClockSkew(g.clockSkewMs, { locale }))}
          </p>
        ))}
      {data.sendSkews.map((k) => (
        <p key={k.deliveryId} className="muted note" data-testid="timeline-send-skew">
          {t.timeline.drawnBeforeSend(k.deliveryId, laneName(data.lanes.find((l) => l.id === k.lane)!, t), describeClockSkew(k.clockSkewMs, { locale }))}
        </p>
      ))}
      <ul className="tl-legend" aria-label={t.timeline.legend}>
        {(Object.keys(SYMBOLS) as MarkKind[])
          .filter((k) => data.lanes.some((l) => l.marks.some((m) => m.kind === k)))
          .map((k) => (
            <li key={k}>
              <span className={`k-${k}`} aria-hidden="true">
                {SYMBOLS[k]}
              </span>{" "}
              {t.timeline.marks[k]}
            </li>
          ))}
      </ul>
    </div>
  );
}
