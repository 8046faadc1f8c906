"use client";

import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { useSelectChoice } from "./useSelectChoice.ts";
import { Literal } from "@/components/Literal.tsx";
import type { ChannelType } from "@/lib/alerts/channels/config.ts";
import { groupableBy, measuredValue, type Condition, type ConditionKind } from "@/lib/alerts/conditions.ts";
import { kindModule, type AnyKind } from "@/lib/alerts/kinds/index.ts";
import { labelsText } from "@/lib/alerts/labels.ts";
import type { RulePreview } from "@/lib/alerts/preview.ts";
import type { GroupByLabel } from "@/lib/alerts/series.ts";
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
  /** The store's consumer groups and topics, offered by the condition's group and topic fields. */
  groups: readonly string[];
  topics: readonly string[];
}

/** Keys shown per alert of a preview: enough to recognise, the rest are in the firing once it fires. */
const PREVIEW_KEYS = 3;

const text = (v: unknown) => (v === undefined || v === null ? "" : String(v));

/** The condition as the API takes it, from the kind's fields (lib/alerts/kinds): minutes become seconds. */
function conditionFrom(form: FormData, kind: string): Record<string, unknown> {
  const condition: Record<string, unknown> = { kind };
  for (const field of kindModule(kind as ConditionKind).fields) {
    const value = String(form.get(field.key) ?? "").trim();
    if (field.control === "minutes") condition[field.key] = Math.round(Number(value) * 60);
    else if (value === "") continue;
    else condition[field.key] = field.control === "count" || field.control === "percent" ? Number(value) : value;
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
  const [previewAlerts, setPreviewAlerts] = useState<{ what: string; value: string; keys: string[]; more: boolean }[]>([]);
  const [busy, setBusy] = useState(false);
  const templatesId = useId();
  const groupsId = useId();
  const topicsId = useId();
  const c = initial?.condition ?? { kind };
  const groupable = groupableBy(kind as ConditionKind);
  const fields = kindModule(kind as ConditionKind).fields;

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
    setPreviewAlerts([]);
    if (response instanceof Error || !response.ok) {
      const parsed = response instanceof Error ? null : ((await response.json().catch(() => null)) as { error?: { message?: string } } | null);
      return setPreviewed(`${t.preview}: ${response instanceof Error ? response.message : (parsed?.error?.message ?? String(response.status))}`);
    }
    const result = (await response.json()) as RulePreview;
    // The label values name the alerts: "cg_push, cg_points" for a rule split by group.
    const sets = result.breaching.map((m) => Object.values(m.labels).join("/")).filter(Boolean);
    setPreviewed(result.breaching.length === 0 ? t.previewNothing : sets.length === 0 ? t.previewWhole : t.previewFor(sets.join(", ")));
    // The API accepted the condition, so it is one.
    const condition = body.condition as Condition;
    setPreviewAlerts(
      result.breaching.map((m) => ({
        what: labelsText(m.labels) || d.alerts.alertsTable.wholeRule,
        value: measuredValue(condition, m.value, locale),
        keys: m.keys.slice(0, PREVIEW_KEYS),
        more: m.keys.length > PREVIEW_KEYS,
      })),
    );
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
      {fields.map((field) => (
        <ConditionInput key={`${kind}.${field.key}`} field={field} value={c[field.key]} options={options} ids={{ groups: groupsId, topics: topicsId }} locale={locale} />
      ))}
      <datalist id={groupsId}>
        {options.groups.map((g) => (
          <option key={g} value={g} />
        ))}
      </datalist>
      <datalist id={topicsId}>
        {options.topics.map((v) => (
          <option key={v} value={v} />
        ))}
      </datalist>
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
      {previewAlerts.length > 0 ? (
        <ul className="alerts-preview-list" aria-label={t.previewAlerts}>
          {previewAlerts.map((a) => (
            <li key={a.what}>
              <span className="mono">{a.what}</span>: <strong>{a.value}</strong>
              {a.keys.length > 0 ? (
                <>
                  {" · "}
                  {t.previewKeys(a.keys.join(", "), a.more)}
                </>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
    </form>
  );
}

/** One field of the condition, as its kind describes it; `value` is the edited rule's, in the API's unit. */
function ConditionInput({ field, value, options, ids, locale }: { field: AnyKind["fields"][number]; value: unknown; options: RuleFormOptions; ids: { groups: string; topics: string }; locale: Locale }) {
  const d = dictionary(locale);
  const t = d.alerts.ruleForm;
  const label = t.fields[field.key];
  const initial = text(value ?? field.initial);
  switch (field.control) {
    case "cause":
      return (
        <label>
          {label}
          <select name={field.key} defaultValue={initial || options.causes[0]}>
            {options.causes.map((v) => (
              <option key={v} value={v}>
                {causeName(v, locale)}
              </option>
            ))}
          </select>
        </label>
      );
    case "layer":
      return (
        <label>
          {label}
          <select name={field.key} defaultValue={initial}>
            {options.layers.map((v) => (
              <option key={v} value={v}>
                {d.layers[v]}
              </option>
            ))}
          </select>
        </label>
      );
    case "group":
    case "topic":
      // Free text still: a group that has sent nothing yet can be watched before it does.
      return (
        <label>
          {label} <input name={field.key} list={field.control === "group" ? ids.groups : ids.topics} autoComplete="off" required={field.required} defaultValue={initial} placeholder={field.required ? "" : t.any} />
        </label>
      );
    case "source":
      return (
        <label>
          {label} <input name={field.key} required={field.required} defaultValue={initial} placeholder="rocketmq-client-log:" />
        </label>
      );
    case "count":
      return (
        <label>
          {label} <input name={field.key} type="number" min={0} step={1} required={field.required} defaultValue={initial} />
        </label>
      );
    case "percent":
      return (
        <label>
          {label} <input name={field.key} type="number" min={0} max={100} step="any" required={field.required} defaultValue={initial} />
        </label>
      );
    case "minutes":
      return (
        <label>
          {label} <input name={field.key} type="number" min={1} step={1} required={field.required} defaultValue={value ? Number(value) / 60 : text(field.initial)} />
        </label>
      );
  }
}
