"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { callApi } from "./api.ts";

/** The fields of a rule as the form edits them; the API's RuleView fits it. */
export interface RuleFormValue {
  id?: string;
  name: string;
  enabled: boolean;
  condition: Record<string, unknown> & { kind: string };
  forSeconds: number;
  repeatSeconds: number;
  severity: string;
  labels: Record<string, string>;
  description: string | null;
  channelIds: string[];
}

export interface RuleFormOptions {
  kinds: readonly string[];
  causes: readonly string[];
  layers: readonly string[];
  severities: readonly string[];
  channels: { id: string; name: string; type: string }[];
}

const KIND_LABELS: Record<string, string> = {
  leaked_duplicates: "Leaked duplicates > N",
  duplicate_rate: "Duplicates per 100 keys > X %",
  cause_count: "Duplicates of one cause > N",
  rebalances: "Rebalances of a group > N",
  dedup_miss_rate: "Dedup layer miss rate > X %",
  ingest_silent: "Source silent for longer than T",
};

/** Which condition fields each kind takes (the API validates; this only decides what the form shows). */
const FIELDS: Record<string, string[]> = {
  leaked_duplicates: ["group", "topic", "threshold", "window"],
  duplicate_rate: ["group", "topic", "thresholdPercent", "minKeys", "window"],
  cause_count: ["cause", "group", "topic", "threshold", "window"],
  rebalances: ["group*", "topic", "threshold", "window"],
  dedup_miss_rate: ["group*", "layer", "thresholdPercent", "minHits", "window"],
  ingest_silent: ["source", "silent"],
};

const text = (v: unknown) => (v === undefined || v === null ? "" : String(v));

function conditionFrom(form: FormData, kind: string): Record<string, unknown> {
  const get = (name: string) => String(form.get(name) ?? "").trim();
  const condition: Record<string, unknown> = { kind };
  for (const field of FIELDS[kind] ?? []) {
    const name = field.replace("*", "");
    const value = get(name);
    if (name === "window") condition.windowSeconds = Math.round(Number(value) * 60);
    else if (name === "silent") condition.silentSeconds = Math.round(Number(value) * 60);
    else if (["threshold", "thresholdPercent", "minKeys", "minHits"].includes(name)) {
      if (value !== "") condition[name] = Number(value);
    } else if (value !== "") condition[name] = value;
  }
  return condition;
}

function labelsFrom(raw: string): Record<string, string> {
  return Object.fromEntries(
    raw
      .split(/[\n,]/)
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf("=");
        return at < 0 ? [pair, ""] : [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
      }),
  );
}

export function RuleForm({ initial, options }: { initial?: RuleFormValue; options: RuleFormOptions }) {
  const router = useRouter();
  const [kind, setKind] = useState(initial?.condition.kind ?? "leaked_duplicates");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const c = initial?.condition ?? { kind };
  const fields = FIELDS[kind] ?? [];
  const shows = (name: string) => fields.includes(name) || fields.includes(`${name}*`);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const body = {
      name: String(form.get("name") ?? ""),
      enabled: form.get("enabled") === "on",
      condition: conditionFrom(form, kind),
      forSeconds: Number(form.get("forSeconds") || 0),
      repeatSeconds: Math.round(Number(form.get("repeatMinutes") || 0) * 60),
      severity: String(form.get("severity")),
      labels: labelsFrom(String(form.get("labels") ?? "")),
      description: String(form.get("description") ?? "") || null,
      channelIds: form.getAll("channelIds").map(String),
    };
    setBusy(true);
    const problem = await callApi(initial?.id ? "PUT" : "POST", initial?.id ? `/api/v1/alerts/rules/${initial.id}` : "/api/v1/alerts/rules", body);
    setBusy(false);
    setError(problem);
    if (problem) return;
    if (initial?.id) router.push("/alerts");
    else element.reset();
    router.refresh();
  }

  return (
    <form className="alerts-form" onSubmit={submit} aria-label={initial?.id ? "Edit rule" : "New rule"}>
      <label>
        Name <input name="name" required maxLength={120} defaultValue={initial?.name ?? ""} />
      </label>
      <label>
        Condition
        <select name="kind" value={kind} onChange={(e) => setKind(e.target.value)}>
          {options.kinds.map((k) => (
            <option key={k} value={k}>
              {KIND_LABELS[k] ?? k}
            </option>
          ))}
        </select>
      </label>
      {shows("cause") ? (
        <label>
          Cause
          <select name="cause" defaultValue={text(c.cause) || options.causes[0]}>
            {options.causes.map((v) => (
              <option key={v}>{v}</option>
            ))}
          </select>
        </label>
      ) : null}
      {shows("layer") ? (
        <label>
          Layer that misses
          <select name="layer" defaultValue={text(c.layer) || "redis"}>
            {options.layers.map((v) => (
              <option key={v}>{v}</option>
            ))}
          </select>
        </label>
      ) : null}
      {shows("group") ? (
        <label>
          Consumer group <input name="group" required={fields.includes("group*")} defaultValue={text(c.group)} placeholder={fields.includes("group*") ? "" : "any"} />
        </label>
      ) : null}
      {shows("topic") ? (
        <label>
          Topic <input name="topic" defaultValue={text(c.topic)} placeholder="any" />
        </label>
      ) : null}
      {shows("source") ? (
        <label>
          Source starts with <input name="source" required defaultValue={text(c.source)} placeholder="rocketmq-client-log:" />
        </label>
      ) : null}
      {shows("threshold") ? (
        <label>
          More than <input name="threshold" type="number" min={0} step={1} required defaultValue={text(c.threshold ?? 0)} />
        </label>
      ) : null}
      {shows("thresholdPercent") ? (
        <label>
          More than (%) <input name="thresholdPercent" type="number" min={0} max={100} step="any" required defaultValue={text(c.thresholdPercent ?? 1)} />
        </label>
      ) : null}
      {shows("minKeys") ? (
        <label>
          At least keys <input name="minKeys" type="number" min={0} step={1} defaultValue={text(c.minKeys ?? 1)} />
        </label>
      ) : null}
      {shows("minHits") ? (
        <label>
          At least hits <input name="minHits" type="number" min={0} step={1} defaultValue={text(c.minHits ?? 1)} />
        </label>
      ) : null}
      {shows("window") ? (
        <label>
          Window (minutes) <input name="window" type="number" min={1} step={1} required defaultValue={text(c.windowSeconds ? Number(c.windowSeconds) / 60 : 10)} />
        </label>
      ) : null}
      {shows("silent") ? (
        <label>
          Silent for (minutes) <input name="silent" type="number" min={1} step={1} required defaultValue={text(c.silentSeconds ? Number(c.silentSeconds) / 60 : 15)} />
        </label>
      ) : null}
      <label>
        For (seconds) <input name="forSeconds" type="number" min={0} step={1} defaultValue={initial?.forSeconds ?? 0} />
      </label>
      <label>
        Repeat every (minutes, 0: never) <input name="repeatMinutes" type="number" min={0} step={1} defaultValue={(initial?.repeatSeconds ?? 14400) / 60} />
      </label>
      <label>
        Severity
        <select name="severity" defaultValue={initial?.severity ?? "warning"}>
          {options.severities.map((v) => (
            <option key={v}>{v}</option>
          ))}
        </select>
      </label>
      <label>
        Labels (name=value, one per line)
        <textarea name="labels" rows={2} defaultValue={Object.entries(initial?.labels ?? {}).map(([k, v]) => `${k}=${v}`).join("\n")} />
      </label>
      <label>
        Description <textarea name="description" rows={2} defaultValue={initial?.description ?? ""} />
      </label>
      <fieldset>
        <legend>Channels</legend>
        {options.channels.length === 0 ? <span className="muted">none yet: add one below</span> : null}
        {options.channels.map((ch) => (
          <label key={ch.id} className="alerts-check">
            <input type="checkbox" name="channelIds" value={ch.id} defaultChecked={initial?.channelIds.includes(ch.id) ?? false} /> {ch.name} <span className="muted">({ch.type})</span>
          </label>
        ))}
      </fieldset>
      <label className="alerts-check">
        <input type="checkbox" name="enabled" defaultChecked={initial?.enabled ?? true} /> Enabled
      </label>
      <div>
        <button type="submit" className="alerts-button" disabled={busy}>
          {initial?.id ? "Save rule" : "Create rule"}
        </button>
        {error ? (
          <span role="alert" className="alerts-error">
            {error}
          </span>
        ) : null}
      </div>
    </form>
  );
}
