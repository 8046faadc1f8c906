import { z } from "zod";
import { channelSchema } from "./channels/config.ts";
import { unknownPlaceholders } from "./annotations.ts";
import { conditionSchema, groupableBy } from "./conditions.ts";
import { GROUP_BY_LABELS } from "./series.ts";

export const SEVERITIES = ["info", "warning", "critical"] as const;

/** Label names as Prometheus allows them, minus the ones dupscope sets itself. */
const labelName = z
  .string()
  .regex(/^[a-zA-Z_][a-zA-Z0-9_]{0,62}$/, "must be a Prometheus label name")
  .refine((n) => !n.startsWith("__") && !["alertname", "severity"].includes(n), "is reserved (alertname and severity are set from the rule)");

/** A record keyed by labelName would only say "Invalid key in record"; each bad name gets its own reason here. */
const labels = z.record(z.string(), z.string().max(256)).superRefine((value, ctx) => {
  for (const name of Object.keys(value)) {
    const checked = labelName.safeParse(name);
    if (!checked.success) ctx.addIssue({ code: "custom", path: [name], message: checked.error.issues[0]!.message });
  }
});

export const ruleInputSchema = z
  .object({
    name: z.string().trim().min(1).max(120),
    enabled: z.boolean().default(true),
    condition: conditionSchema,
    forSeconds: z.number().int().min(0).max(86400).default(0),
    /** Reminder interval while firing; 0 sends none. Alertmanager's default is 4 h. */
    repeatSeconds: z.number().int().min(0).max(7 * 86400).default(4 * 3600),
    severity: z.enum(SEVERITIES).default("warning"),
    labels: labels.default({}),
    /** Annotation templates (annotations.ts); summary null: the generated one. */
    summary: z.string().trim().max(500).nullish().transform((v) => v || null),
    description: z.string().trim().max(2000).nullish().transform((v) => v || null),
    runbookUrl: z
      .string()
      .trim()
      .max(2048)
      .regex(/^https?:\/\//, "must be an http(s) URL (it may hold {{ $labels.<name> }})")
      .nullish()
      .transform((v) => v || null),
    channelIds: z.array(z.string().min(1).max(64)).max(20).default([]),
    /** One alert per value set of these labels (lib/alerts/series.ts); none: one alert for the whole rule. */
    groupBy: z
      .array(z.enum(GROUP_BY_LABELS))
      .max(GROUP_BY_LABELS.length)
      .default([])
      .transform((by) => GROUP_BY_LABELS.filter((label) => by.includes(label))),
  })
  .strict()
  .superRefine((rule, ctx) => {
    for (const field of ["summary", "description", "runbookUrl"] as const) {
      const unknown = unknownPlaceholders(rule[field] ?? "");
      if (unknown.length > 0) {
        ctx.addIssue({ code: "custom", path: [field], message: `${unknown.join(", ")}: only {{ $labels.<name> }}, {{ $value }} and {{ $keys }} are filled in` });
      }
    }
    const allowed = groupableBy(rule.condition.kind);
    for (const label of rule.groupBy) {
      if (!allowed.includes(label)) {
        ctx.addIssue({ code: "custom", path: ["groupBy"], message: `a ${rule.condition.kind} rule can be grouped by ${allowed.join(", ")}, not by ${label}` });
      }
    }
  });

export type RuleInput = z.infer<typeof ruleInputSchema>;

export const channelInputSchema = z.intersection(
  z.object({ name: z.string().trim().min(1).max(120), enabled: z.boolean().default(true) }),
  channelSchema,
);

export type ChannelInput = z.infer<typeof channelInputSchema>;
