import Link from "next/link";
import { DeleteButton } from "./DeleteButton.tsx";
import { StateBadge } from "./StateBadge.tsx";

export interface RuleRow {
  id: string;
  name: string;
  enabled: boolean;
  conditionText: string;
  forSeconds: number;
  severity: string;
  state: string;
  lastValue: number | null;
  lastEvalAt: string | null;
  lastError: string | null;
  channelNames: string[];
}

export function RulesTable({ rules }: { rules: RuleRow[] }) {
  if (rules.length === 0) return <p className="muted">No rules yet.</p>;
  return (
    <div className="table-wrap">
      <table className="events" aria-label="Alert rules">
        <thead>
          <tr>
            <th>state</th>
            <th>rule</th>
            <th>condition</th>
            <th>for</th>
            <th>severity</th>
            <th>last value</th>
            <th>channels</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rules.map((r) => (
            <tr key={r.id} data-rule={r.name}>
              <td>
                <StateBadge state={r.enabled ? r.state : "disabled"} />
              </td>
              <td>{r.name}</td>
              <td className="alerts-wrap">
                {r.conditionText}
                {r.lastError ? (
                  <div role="alert" className="alerts-error">
                    {r.lastError}
                  </div>
                ) : null}
              </td>
              <td>{r.forSeconds} s</td>
              <td>{r.severity}</td>
              <td title={r.lastEvalAt ? `evaluated ${r.lastEvalAt}` : "not evaluated yet"}>{r.lastValue === null ? "–" : Number(r.lastValue.toFixed(2))}</td>
              <td>{r.channelNames.join(", ") || <span className="muted">none</span>}</td>
              <td className="alerts-actions">
                <Link href={`/alerts?edit=${encodeURIComponent(r.id)}#rule-form`}>Edit</Link> <DeleteButton url={`/api/v1/alerts/rules/${r.id}`} what={`rule "${r.name}"`} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
