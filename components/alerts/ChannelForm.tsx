"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { useSelectChoice } from "./useSelectChoice.ts";
import { Literal } from "@/components/Literal.tsx";
import type { ChannelType } from "@/lib/alerts/channels/config.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary, type Dictionary } from "@/lib/i18n/dictionary.ts";
import { callApi } from "./api.ts";

export interface ChannelFormValue {
  id?: string;
  name: string;
  type: ChannelType;
  enabled: boolean;
  config: Record<string, unknown>;
}

type Words = Dictionary["alerts"]["channelForm"];

interface Field {
  name: string;
  label: keyof Words["fields"];
  kind?: "secret" | "number" | "list" | "bool";
  optional?: boolean;
  /** The placeholder: an example URL reads the same in every language; a hint is translated. */
  example?: string;
  hint?: keyof Words["hints"];
}

/** Per type, the config fields the form asks for; secrets come back from the API masked and are kept when unchanged. */
const FIELDS: Record<ChannelType, Field[]> = {
  webhook: [
    { name: "url", label: "url" },
    { name: "secret", label: "signingSecret", kind: "secret", optional: true },
  ],
  alertmanager: [{ name: "url", label: "alertmanagerUrl", hint: "alertmanager", example: "http://alertmanager:9093" }],
  alertmanager_webhook: [{ name: "url", label: "receiverUrl", hint: "alertmanagerWebhook" }],
  dingtalk: [
    { name: "url", label: "robotUrl", example: "https://oapi.dingtalk.com/robot/send?access_token=…" },
    { name: "secret", label: "dingtalkSecret", kind: "secret", optional: true },
  ],
  feishu: [
    { name: "url", label: "botUrl", example: "https://open.feishu.cn/open-apis/bot/v2/hook/…" },
    { name: "secret", label: "feishuSecret", kind: "secret", optional: true },
  ],
  wecom: [{ name: "url", label: "robotUrl", example: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…" }],
  slack: [{ name: "url", label: "incomingUrl", example: "https://hooks.slack.com/services/…" }],
  email: [
    { name: "host", label: "smtpHost" },
    { name: "port", label: "port", kind: "number" },
    { name: "secure", label: "secure", kind: "bool" },
    { name: "user", label: "user", optional: true },
    { name: "password", label: "password", kind: "secret", optional: true },
    { name: "from", label: "from" },
    { name: "to", label: "to", kind: "list" },
  ],
};

const CHANNEL_TYPE_NAMES = Object.keys(FIELDS) as ChannelType[];

function placeholder(field: Field, t: Words): string {
  if (field.example) return field.example;
  if (field.hint) return t.hints[field.hint];
  return field.optional ? t.optional : "";
}

function configFrom(form: FormData, type: ChannelType): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of FIELDS[type]) {
    const raw = String(form.get(`config.${field.name}`) ?? "").trim();
    if (field.kind === "bool") config[field.name] = form.get(`config.${field.name}`) === "on";
    else if (raw === "" && field.optional) continue;
    else if (field.kind === "number") config[field.name] = Number(raw);
    else if (field.kind === "list") config[field.name] = raw.split(",").map((v) => v.trim()).filter(Boolean);
    else config[field.name] = raw;
  }
  return config;
}

export function ChannelForm({ initial, locale }: { initial?: ChannelFormValue; locale: Locale }) {
  const d = dictionary(locale).alerts;
  const t = d.channelForm;
  const router = useRouter();
  const [type, setType, typeSelect] = useSelectChoice<ChannelType>(initial?.type ?? "webhook");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const stored = initial?.type === type ? initial.config : {};

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    const body = { name: String(form.get("name") ?? ""), enabled: form.get("enabled") === "on", type, config: configFrom(form, type) };
    setBusy(true);
    const problem = await callApi(initial?.id ? "PUT" : "POST", initial?.id ? `/api/v1/alerts/channels/${initial.id}` : "/api/v1/alerts/channels", body);
    setBusy(false);
    setError(problem);
    if (problem) return;
    if (initial?.id) router.push("/alerts");
    else element.reset();
    router.refresh();
  }

  return (
    <form className="alerts-form" onSubmit={submit} aria-label={initial?.id ? d.editChannel(initial.name) : d.newChannel}>
      <label>
        {t.name} <input name="name" required maxLength={120} defaultValue={initial?.name ?? ""} />
      </label>
      <label>
        {t.type}
        <select name="type" ref={typeSelect} value={type} onChange={(e) => setType(e.target.value as ChannelType)}>
          {CHANNEL_TYPE_NAMES.map((name) => (
            <option key={name} value={name}>
              {d.channelTypes[name]}
            </option>
          ))}
        </select>
      </label>
      {FIELDS[type].map((field) => {
        const value = stored[field.name];
        const name = `config.${field.name}`;
        if (field.kind === "bool") {
          return (
            <label key={`${type}.${field.name}`} className="alerts-check">
              <input type="checkbox" name={name} defaultChecked={value === true} /> <Literal text={t.fields[field.label]} />
            </label>
          );
        }
        return (
          <label key={`${type}.${field.name}`}>
            <Literal text={t.fields[field.label]} />
            <input
              name={name}
              type={field.kind === "number" ? "number" : field.kind === "secret" ? "password" : "text"}
              required={!field.optional}
              placeholder={placeholder(field, t)}
              defaultValue={Array.isArray(value) ? value.join(", ") : value === undefined ? "" : String(value)}
            />
          </label>
        );
      })}
      <label className="alerts-check">
        <input type="checkbox" name="enabled" defaultChecked={initial?.enabled ?? true} /> {t.enabled}
      </label>
      <div>
        <button type="submit" className="alerts-button" disabled={busy}>
          {initial?.id ? t.save : t.add}
        </button>
        {error ? (
          <span role="alert" className="alerts-error">
            {d.notSaved(error)}
          </span>
        ) : null}
      </div>
    </form>
  );
}
