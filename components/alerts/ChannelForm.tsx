"use client";

import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { callApi } from "./api.ts";

export interface ChannelFormValue {
  id?: string;
  name: string;
  type: string;
  enabled: boolean;
  config: Record<string, unknown>;
}

/** Per type, the config fields the form asks for; secrets come back from the API masked and are kept when unchanged. */
const FIELDS: Record<string, { name: string; label: string; kind?: "secret" | "number" | "list" | "bool"; optional?: boolean; hint?: string }[]> = {
  webhook: [
    { name: "url", label: "URL" },
    { name: "secret", label: "Signing secret (X-Dupscope-Signature)", kind: "secret", optional: true },
  ],
  alertmanager: [{ name: "url", label: "Receiver URL", hint: "anything that takes Alertmanager's webhook payload" }],
  dingtalk: [
    { name: "url", label: "Robot webhook URL", hint: "https://oapi.dingtalk.com/robot/send?access_token=…" },
    { name: "secret", label: "Signing secret (加签, SEC…)", kind: "secret", optional: true },
  ],
  feishu: [
    { name: "url", label: "Bot webhook URL", hint: "https://open.feishu.cn/open-apis/bot/v2/hook/…" },
    { name: "secret", label: "Signing secret (签名校验)", kind: "secret", optional: true },
  ],
  wecom: [{ name: "url", label: "Robot webhook URL", hint: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=…" }],
  slack: [{ name: "url", label: "Incoming webhook URL", hint: "https://hooks.slack.com/services/…" }],
  email: [
    { name: "host", label: "SMTP host" },
    { name: "port", label: "Port", kind: "number" },
    { name: "secure", label: "TLS from the start (port 465)", kind: "bool" },
    { name: "user", label: "User", optional: true },
    { name: "password", label: "Password", kind: "secret", optional: true },
    { name: "from", label: "From" },
    { name: "to", label: "To (comma separated)", kind: "list" },
  ],
};

const CHANNEL_TYPE_NAMES = Object.keys(FIELDS);

function configFrom(form: FormData, type: string): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of FIELDS[type] ?? []) {
    const raw = String(form.get(`config.${field.name}`) ?? "").trim();
    if (field.kind === "bool") config[field.name] = form.get(`config.${field.name}`) === "on";
    else if (raw === "" && field.optional) continue;
    else if (field.kind === "number") config[field.name] = Number(raw);
    else if (field.kind === "list") config[field.name] = raw.split(",").map((v) => v.trim()).filter(Boolean);
    else config[field.name] = raw;
  }
  return config;
}

export function ChannelForm({ initial }: { initial?: ChannelFormValue }) {
  const router = useRouter();
  const [type, setType] = useState(initial?.type ?? "webhook");
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
    <form className="alerts-form" onSubmit={submit} aria-label={initial?.id ? "Edit channel" : "New channel"}>
      <label>
        Name <input name="name" required maxLength={120} defaultValue={initial?.name ?? ""} />
      </label>
      <label>
        Type
        <select name="type" value={type} onChange={(e) => setType(e.target.value)}>
          {CHANNEL_TYPE_NAMES.map((t) => (
            <option key={t}>{t}</option>
          ))}
        </select>
      </label>
      {(FIELDS[type] ?? []).map((field) => {
        const value = stored[field.name];
        const name = `config.${field.name}`;
        if (field.kind === "bool") {
          return (
            <label key={`${type}.${field.name}`} className="alerts-check">
              <input type="checkbox" name={name} defaultChecked={value === true} /> {field.label}
            </label>
          );
        }
        return (
          <label key={`${type}.${field.name}`}>
            {field.label}
            <input
              name={name}
              type={field.kind === "number" ? "number" : field.kind === "secret" ? "password" : "text"}
              required={!field.optional}
              placeholder={field.hint ?? (field.optional ? "optional" : "")}
              defaultValue={Array.isArray(value) ? value.join(", ") : value === undefined ? "" : String(value)}
            />
          </label>
        );
      })}
      <label className="alerts-check">
        <input type="checkbox" name="enabled" defaultChecked={initial?.enabled ?? true} /> Enabled
      </label>
      <div>
        <button type="submit" className="alerts-button" disabled={busy}>
          {initial?.id ? "Save channel" : "Add channel"}
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
