import type { ReactNode } from "react";

/** A dashboard card: the question it answers as its heading, a note on how to read it, then the chart. */
export function Widget({ id, title, note, children, wide = false }: { id: string; title: string; note?: string; children: ReactNode; wide?: boolean }) {
  return (
    <section className={wide ? "widget wide" : "widget"} aria-labelledby={`${id}-title`} data-widget={id}>
      <h2 id={`${id}-title`}>{title}</h2>
      {note ? <p className="muted note">{note}</p> : null}
      {children}
    </section>
  );
}

/** What a widget shows while its query runs. */
export function WidgetSkeleton({ id, title, label }: { id: string; title: string; label: string }) {
  return (
    <section className="widget" aria-labelledby={`${id}-title`} aria-busy="true">
      <h2 id={`${id}-title`}>{title}</h2>
      <div className="skeleton" role="status">
        {label}
      </div>
    </section>
  );
}
