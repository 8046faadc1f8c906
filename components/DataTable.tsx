import type { CSSProperties, HTMLAttributes, ReactNode } from "react";

/**
 * How a column gives way when its table's box is narrow. 1: always shown (what a diagnosis is read from, and any
 * column holding a control or an anchor target, which the fold would render twice). 2: folded into the row's
 * "more" cell below a 64rem box (a 1024-wide window). 3: folded below an 80rem box (narrower than a 1440-wide
 * window's). The breakpoints are container queries in app/globals.css, so the table needs no client code.
 */
export type Priority = 1 | 2 | 3;

export interface Column<Row> {
  /** Names the column in the markup (`data-col`), for styles and tests. */
  id: string;
  header: ReactNode;
  cell: (row: Row) => ReactNode;
  priority?: Priority;
  num?: boolean;
  mono?: boolean;
  /**
   * Long values: `id` breaks anywhere (a msgId or an instance has no spaces, and is still selected and copied
   * whole), `text` breaks between words. Without it a cell keeps to one line.
   */
  wrap?: "id" | "text";
  minWidth?: string;
  maxWidth?: string;
  /** The whole value, for a cell that wraps or shortens it. */
  title?: (row: Row) => string | undefined;
  /** The cell's own id, as an anchor's target. */
  cellId?: (row: Row) => string | undefined;
  /**
   * The values are data (names, ids), not words of the page's language: marked `translate="no"`, so translators
   * and the Chinese pages' test leave them alone.
   */
  data?: boolean;
}

type RowAttributes = HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | undefined>;

function cellClass(column: Column<unknown>): string | undefined {
  const names = [
    column.num ? "num" : "",
    column.mono ? "mono" : "",
    column.wrap === "id" ? "dt-id" : column.wrap === "text" ? "dt-text" : "",
    (column.priority ?? 1) > 1 ? `dt-p${column.priority}` : "",
  ].filter(Boolean);
  return names.length > 0 ? names.join(" ") : undefined;
}

/**
 * The attributes that have a value. A server component's props travel in the page's flight data, where an
 * undefined one is still written out ("title":"$undefined"): four per cell made the overview's tables 20 KB
 * heavier than the markup they replaced, and a key page's events table carries thousands of cells.
 */
function defined<T extends object>(attributes: T): Partial<T> {
  return Object.fromEntries(Object.entries(attributes).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function widths(column: Column<unknown>): CSSProperties | undefined {
  if (!column.minWidth && !column.maxWidth) return undefined;
  return { ...(column.minWidth ? { minWidth: column.minWidth } : {}), ...(column.maxWidth ? { maxWidth: column.maxWidth } : {}) };
}

/**
 * One table of the dashboard: a box that never lets the page scroll sideways, columns that wrap long values, and
 * columns of lower priority folded into a per-row "more" cell when the box is narrow. `more` is that cell's word.
 */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  rowAttributes,
  more,
  label,
  testId,
  compact,
  renderRow,
  trailingColumn,
}: {
  columns: Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row) => string;
  rowAttributes?: (row: Row) => RowAttributes;
  more?: string;
  label?: string;
  testId?: string;
  compact?: boolean;
  /**
   * Renders a row from its cells, for rows that bring more than cells: a client component that adds its own last
   * cell (headed by `trailingColumn`) and a row of its own under it (the alerts' acknowledge form).
   */
  renderRow?: (row: Row, cells: ReactNode, key: string) => ReactNode;
  trailingColumn?: { id: string; header: ReactNode };
}) {
  const folded = columns.filter((c) => (c.priority ?? 1) > 1);
  const tiers = [...new Set(folded.map((c) => c.priority))].map((p) => `dt-has-p${p}`);
  if (folded.length > 0 && !more) throw new Error("a table with columns of priority 2 or 3 needs the word for its fold");
  const className = ["data", "dt", compact ? "compact" : "", ...tiers].filter(Boolean).join(" ");
  return (
    <div className="dt-wrap">
      <table className={className} aria-label={label} data-testid={testId}>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.id} scope="col" data-col={c.id} {...defined({ className: cellClass(c as Column<unknown>), style: widths(c as Column<unknown>) })}>
                {c.header}
              </th>
            ))}
            {folded.length > 0 ? (
              <th scope="col" data-col="more" className="dt-fold">
                {more}
              </th>
            ) : null}
            {trailingColumn ? (
              <th scope="col" data-col={trailingColumn.id}>
                {trailingColumn.header}
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => {
            const key = rowKey(row);
            const cells = (
              <>
                {columns.map((c) => (
                  <td
                    key={c.id}
                    {...defined({
                      id: c.cellId?.(row),
                      title: c.title?.(row),
                      className: cellClass(c as Column<unknown>),
                      style: widths(c as Column<unknown>),
                      translate: c.data ? ("no" as const) : undefined,
                    })}
                  >
                    {c.cell(row)}
                  </td>
                ))}
                {folded.length > 0 ? (
                  <td className="dt-fold">
                    <details>
                      <summary>{more}</summary>
                      <dl>
                        {folded.map((c) => (
                          <div key={c.id} className={`dt-f${c.priority}${c.mono ? " mono" : ""}`} {...defined({ title: c.title?.(row) })}>
                            <dt>{c.header}</dt>
                            <dd {...defined({ translate: c.data ? ("no" as const) : undefined })}>{c.cell(row)}</dd>
                          </div>
                        ))}
                      </dl>
                    </details>
                  </td>
                ) : null}
              </>
            );
            return renderRow ? (
              renderRow(row, cells, key)
            ) : (
              <tr key={key} {...rowAttributes?.(row)}>
                {cells}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
