"use client";

import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { useSelectChoice } from "./useSelectChoice.ts";
import { Literal } from "@/components/Literal.tsx";
import type { ChannelType } from "@/lib/alerts/channels/config.ts";
import type { ConditionKind } from "@/lib/alerts/conditions.ts";
import type { RulePreview } from "@/lib/alerts/preview.ts";
import { groupableBy, type GroupByLabel } from "@/lib/alerts/series.ts";
import type { RuleInput } from "@/lib/alerts/schema.ts";
import { causeName } from "@/lib/i18n/diagnosis-text.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import type { Cause, DedupLayer } from "@/lib/diagnosis/vocabulary.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
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
  summary: string | null;
  description: string | null;
  runbookUrl: string | null;
  channelIds: string[];
  groupBy: string[];
}

export interface RuleFormOptions {
  kinds: readonly ConditionKind[];
  causes: readonly Cause[];
  layers: readonly DedupLayer[];
  severities: readonly RuleInput["severity"][];
  channels: { id: string; name: string; type: ChannelType }[];
}

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

export function RuleForm({ initial, options, locale }: { initial?: RuleFormValue; options: RuleFormOptions; locale: Locale }) {
  const d = dictionary(locale);
  const t = d.alerts.ruleForm;
  const router = useRouter();
  const [kind, setKind, kindSelect] = useSelectChoice(initial?.condition.kind ?? "leaked_duplicates");
  const [error, setError] = useState<string | null>(null);
  const [previewed, setPreviewed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const templatesId = useId();
  const c = initial?.condition ?? { kind };
  const groupable = groupableBy(kind as ConditionKind);
  const fields = FIELDS[kind] ?? [];
  const shows = (name: string) => fields.includes(name) || fields.includes(`${name}*`);

  function bodyOf(element: HTMLFormElement) {
    const form = new FormData(element);
    return {
      name: String(form.get("name") ?? ""),
      enabled: form.get("enabled") === "on",
      condition: conditionFrom(form, kind),
      forSeconds: Number(form.get("forSeconds") || 0),
      repeatSeconds: Math.round(Number(form.get("repeatMinutes") || 0) * 60),
      severity: String(form.get("severity")),
      labels: labelsFrom(String(form.get("labels") ?? "")),
      summary: String(form.get("summary") ?? "") || null,
      description: String(form.get("description") ?? "") || null,
      runbookUrl: String(form.get("runbookUrl") ?? "") || null,
      channelIds: form.getAll("channelIds").map(String),
      // Only the labels this kind can be split by: a box left ticked from another kind would be refused.
      groupBy: form.getAll("groupBy").map(String).filter((label) => groupable.includes(label as GroupByLabel)),
    };
  }

  async function preview(form: HTMLFormElement) {
    setBusy(true);
    // A rule can be previewed before it has a name.
    const body = { ...bodyOf(form), name: String(new FormData(form).get("name") ?? "").trim() || "preview" };
    const response = await fetch("/api/v1/alerts/rules/preview", { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } }).catch(
      (e: unknown) => e as Error,
    );
    setBusy(false);
    if (response instanceof Error || !response.ok) {
      const parsed = response instanceof Error ? null : ((await response.json().catch(() => null)) as { error?: { message?: string } } | null);
      return setPreviewed(`${t.preview}: ${response instanceof Error ? response.message : (parsed?.error?.message ?? String(response.status))}`);
    }
    const result = (await response.json()) as RulePreview;
    // The label values name the alerts: "cg_push, cg_points" for a rule split by group.
    const sets = result.breaching.map((m) => Object.values(m.labels).join("/")).filter(Boolean);
    setPreviewed(result.breaching.length === 0 ? t.previewNothing : sets.length === 0 ? t.previewWhole : t.previewFor(sets.join(", ")));
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const body = bodyOf(element);
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
    <form className="alerts-form" onSubmit={submit} aria-label={initial?.id ? d.alerts.editRule(initial.name) : d.alerts.newRule}>
      <label>
        {t.name} <input name="name" required maxLength={120} defaultValue={initial?.name ?? ""} />
      </label>
      <label>
        {t.condition}
        <select name="kind" ref={kindSelect} value={kind} onChange={(e) => setKind(e.target.value)}>
          {options.kinds.map((k) => (
            <option key={k} value={k}>
              {t.kinds[k]}
            </option>
          ))}
        </select>
      </label>
      {shows("cause") ? (
        <label>
          {t.cause}
          <select name="cause" defaultValue={text(c.cause) || options.causes[0]}>
            {options.causes.map((v) => (
              <option key={v} value={v}>
                {causeName(v, locale)}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {shows("layer") ? (
        <label>
          {t.layer}
          <select name="layer" defaultValue={text(c.layer) || "redis"}>
            {options.layers.map((v) => (
              <option key={v} value={v}>
                {d.layers[v]}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {shows("group") ? (
        <label>
          {t.group} <input name="group" required={fields.includes("group*")} defaultValue={text(c.group)} placeholder={fields.includes("group*") ? "" : t.any} />
        </label>
      ) : null}
      {shows("topic") ? (
        <label>
          {t.topic} <input name="topic" defaultValue={text(c.topic)} placeholder={t.any} />
        </label>
      ) : null}
      {shows("source") ? (
        <label>
          {t.source} <input name="source" required defaultValue={text(c.source)} placeholder="rocketmq-client-log:" />
        </label>
      ) : null}
      {shows("threshold") ? (
        <label>
          {t.threshold} <input name="threshold" type="number" min={0} step={1} required defaultValue={text(c.threshold ?? 0)} />
        </label>
      ) : null}
      {shows("thresholdPercent") ? (
        <label>
          {t.thresholdPercent} <input name="thresholdPercent" type="number" min={0} max={100} step="any" required defaultValue={text(c.thresholdPercent ?? 1)} />
        </label>
      ) : null}
      {shows("minKeys") ? (
        <label>
          {t.minKeys} <input name="minKeys" type="number" min={0} step={1} defaultValue={text(c.minKeys ?? 1)} />
        </label>
      ) : null}
      {shows("minHits") ? (
        <label>
          {t.minHits} <input name="minHits" type="number" min={0} step={1} defaultValue={text(c.minHits ?? 1)} />
        </label>
      ) : null}
      {shows("window") ? (
        <label>
          {t.window} <input name="window" type="number" min={1} step={1} required defaultValue={text(c.windowSeconds ? Number(c.windowSeconds) / 60 : 10)} />
        </label>
      ) : null}
      {shows("silent") ? (
        <label>
          {t.silent} <input name="silent" type="number" min={1} step={1} required defaultValue={text(c.silentSeconds ? Number(c.silentSeconds) / 60 : 15)} />
        </label>
      ) : null}
      <label>
        {t.forSeconds} <input name="forSeconds" type="number" min={0} step={1} defaultValue={initial?.forSeconds ?? 0} />
      </label>
      <label>
        {t.repeat} <input name="repeatMinutes" type="number" min={0} step={1} defaultValue={(initial?.repeatSeconds ?? 14400) / 60} />
      </label>
      <label>
        {t.severity}
        <select name="severity" defaultValue={initial?.severity ?? "warning"}>
          {options.severities.map((v) => (
            <option key={v} value={v}>
              {d.alerts.severities[v]}
            </option>
          ))}
        </select>
      </label>
      <label>
        {t.labels}
        <textarea name="labels" rows={2} defaultValue={Object.entries(initial?.labels ?? {}).map(([k, v]) => `${k}=${v}`).join("\n")} />
      </label>
      {groupable.length > 0 ? (
        <fieldset>
          <legend>{t.groupBy}</legend>
          {groupable.map((label) => (
            <label key={label} className="alerts-check">
              <input type="checkbox" name="groupBy" value={label} defaultChecked={initial?.groupBy.includes(label) ?? false} /> <code>{label}</code>
            </label>
          ))}
        </fieldset>
      ) : null}
      <label>
        {t.summary} <input name="summary" maxLength={500} defaultValue={initial?.summary ?? ""} placeholder="{{ $labels.group }}: {{ $value }}" aria-describedby={templatesId} />
      </label>
      <label>
        {t.description} <textarea name="description" rows={2} defaultValue={initial?.description ?? ""} aria-describedby={templatesId} />
      </label>
      <label>
        {t.runbookUrl} <input name="runbookUrl" inputMode="url" maxLength={2048} defaultValue={initial?.runbookUrl ?? ""} placeholder="https://wiki/runbooks/{{ $labels.group }}" aria-describedby={templatesId} />
      </label>
      <p id={templatesId} className="alerts-hint">
        <Literal text={t.templates} />
      </p>
      <fieldset>
        <legend>{t.channels}</legend>
        {options.channels.length === 0 ? <span className="muted">{t.noChannels}</span> : null}
        {options.channels.map((ch) => (
          <label key={ch.id} className="alerts-check">
            <input type="checkbox" name="channelIds" value={ch.id} defaultChecked={initial?.channelIds.includes(ch.id) ?? false} /> <span translate="no">{ch.name}</span> <span className="muted">({d.alerts.channelTypes[ch.type]})</span>
          </label>
        ))}
      </fieldset>
      <label className="alerts-check">
        <input type="checkbox" name="enabled" defaultChecked={initial?.enabled ?? true} /> {t.enabled}
      </label>
      <div>
        <button type="submit" className="alerts-button" disabled={busy}>
          {initial?.id ? t.save : t.create}
        </button>{" "}
        <button type="button" className="alerts-button quiet" disabled={busy} onClick={(e) => preview(e.currentTarget.form!)}>
          {t.preview}
        </button>
        {error ? (
          <span role="alert" className="alerts-error">
            {d.alerts.notSaved(error)}
          </span>
        ) : null}
      </div>
      <p className="alerts-preview" role="status">
        {previewed}
      </p>
    </form>
  );
}
