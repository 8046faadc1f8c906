import Link from "next/link";
import { StateBadge } from "./StateBadge.tsx";

export interface FiringRow {
  id: string;
  ruleName: string;
  severity: string;
  summary: string;
  keys: string[];
  firedAt: string;
  resolvedAt: string | null;
}

/** The firing history, newest first, each with the keys that made it fire. */
export function FiringsTable({ firings }: { firings: FiringRow[] }) {
  if (firings.length === 0) return <p className="muted">No alert has fired yet.</p>;
  return (
    <div className="table-wrap">
      <table className="events" aria-label="Firing history">
        <thead>
          <tr>
            <th>fired (UTC)</th>
            <th>resolved (UTC)</th>
            <th>rule</th>
            <th>severity</th>
            <th>what</th>
            <th>keys</th>
          </tr>
        </thead>
        <tbody>
          {firings.map((f) => (
            <tr key={f.id}>
              <td className="mono">{f.firedAt.replace("T", " ").slice(0, 19)}</td>
              <td className="mono">{f.resolvedAt ? f.resolvedAt.replace("T", " ").slice(0, 19) : <StateBadge state="firing" />}</td>
              <td>{f.ruleName}</td>
              <td>{f.severity}</td>
              <td className="alerts-wrap">{f.summary}</td>
              <td className="alerts-wrap">
                {f.keys.map((k, i) => (
                  <span key={k}>
                    {i > 0 ? ", " : ""}
                    <Link href={`/keys/${encodeURIComponent(k)}`} className="mono">
                      {k}
                    </Link>
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
