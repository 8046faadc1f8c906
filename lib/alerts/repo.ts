import { randomUUID } from "node:crypto";
import type { Store } from "../store/open.ts";
import { Prisma } from "../generated/prisma/client.ts";
import { InvalidInputError, NotFoundError } from "../errors.ts";
import { MASK, SECRET_FIELDS, type ChannelConfig, type ChannelType } from "./channels/config.ts";
import { describeCondition, type Condition } from "./conditions.ts";
import type { ChannelInput, RuleInput } from "./schema.ts";
import { acknowledged } from "./acks.ts";
import { alertLabels } from "./channels/alertmanager.ts";
import type { Labels } from "./labels.ts";
import { activeSilences, silencing, type SilenceView } from "./silences.ts";
import type { AlertStateName } from "./state-machine.ts";

/** Rules and channels as the API and the page show them; writes validate references and keep secrets. */

/** One alert of a rule: the rule as a whole, or one label set of its group_by. */
export interface AlertView {
  labels: Labels;
  state: AlertStateName;
  activeSince: string | null;
  lastValue: number | null;
  /** Who acknowledged the firing alert, why, and until when (null: until it resolves); null when nobody has. */
  ack: { by: string; comment: string; at: string; until: string | null } | null;
  /** The silence in force that matches the alert's labels, if any: it sends nothing while it lasts. */
  silencedBy: { id: string; createdBy: string; comment: string; endsAt: string } | null;
}

export interface RuleView extends RuleInput {
  id: string;
  conditionText: string;
  /** The rule's most urgent alert state (firing, pending, resolved, inactive), for a rule split by labels too. */
  state: AlertStateName;
  /** Its alerts, the ones firing or pending first; a rule without group_by has one. */
  alerts: AlertView[];
  activeSince: string | null;
  lastEvalAt: string | null;
  lastValue: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ChannelView {
  id: string;
  name: string;
  type: ChannelType;
  enabled: boolean;
  config: ChannelConfig;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

type RuleRow = Awaited<ReturnType<Store["prisma"]["alertRule"]["findFirstOrThrow"]>>;
type StateRow = Awaited<ReturnType<Store["prisma"]["alertState"]["findFirstOrThrow"]>>;

/** How urgent a state is, to order a rule's alerts and to name the rule's own state. */
const URGENCY: Record<AlertStateName, number> = { firing: 0, pending: 1, resolved: 2, inactive: 3 };

function alertView(rule: RuleRow, s: StateRow, silences: readonly SilenceView[], now: number): AlertView {
  const labels = s.labels as Labels;
  const silence = silencing(silences, alertLabels({ ruleName: rule.name, severity: rule.severity, labels: { ...(rule.labels as Labels), ...labels } }));
  const acked = s.state === "firing" && acknowledged(s.ackedAt?.getTime() ?? null, s.ackUntil?.getTime() ?? null, now);
  return {
    labels,
    state: s.state as AlertStateName,
    activeSince: iso(s.activeSince),
    lastValue: s.lastValue,
    ack: acked ? { by: s.ackedBy ?? "", comment: s.ackComment ?? "", at: iso(s.ackedAt)!, until: iso(s.ackUntil) } : null,
    silencedBy: silence ? { id: silence.id, createdBy: silence.createdBy, comment: silence.comment, endsAt: silence.endsAt } : null,
  };
}

function ruleView(rule: RuleRow, states: StateRow[], silences: readonly SilenceView[], now: number): RuleView {
  const condition = rule.condition as unknown as Condition;
  const ordered = [...states].sort((a, b) => URGENCY[a.state as AlertStateName] - URGENCY[b.state as AlertStateName] || a.series.localeCompare(b.series));
  const state = ordered[0];
  const lastEvalAt = Math.max(0, ...states.map((s) => s.lastEvalAt?.getTime() ?? 0));
  const values = states.map((s) => s.lastValue).filter((v): v is number => v !== null);
  return {
    id: rule.id,
    name: rule.name,
    enabled: rule.enabled,
    condition,
    conditionText: describeCondition(condition),
    forSeconds: rule.forSeconds,
    repeatSeconds: rule.repeatSeconds,
    severity: rule.severity as RuleInput["severity"],
    labels: rule.labels as Record<string, string>,
    summary: rule.summary,
    description: rule.description,
    runbookUrl: rule.runbookUrl,
    channelIds: rule.channelIds,
    groupBy: rule.groupBy as RuleInput["groupBy"],
    state: (state?.state ?? "inactive") as AlertStateName,
    alerts: ordered.map((s) => alertView(rule, s, silences, now)),
    activeSince: iso(state?.activeSince ?? null),
    lastEvalAt: lastEvalAt === 0 ? null : new Date(lastEvalAt).toISOString(),
    // The largest of the label sets' values: what the rule's most affected alert measured.
    lastValue: values.length > 0 ? Math.max(...values) : null,
    lastError: states.find((s) => s.lastError !== null)?.lastError ?? null,
    createdAt: rule.createdAt.toISOString(),
    updatedAt: rule.updatedAt.toISOString(),
  };
}

export async function listRules(store: Store, now: number = Date.now()): Promise<RuleView[]> {
  const [rules, states, silences] = await Promise.all([
    store.prisma.alertRule.findMany({ orderBy: { name: "asc" } }),
    store.prisma.alertState.findMany(),
    activeSilences(store.driver, now),
  ]);
  return rules.map((r) => ruleView(r, states.filter((s) => s.ruleId === r.id), silences, now));
}

export async function getRule(store: Store, id: string): Promise<RuleView> {
  const rule = await store.prisma.alertRule.findUnique({ where: { id } });
  if (!rule) throw new NotFoundError(`no alert rule ${id}`);
  const now = Date.now();
  const [states, silences] = await Promise.all([store.prisma.alertState.findMany({ where: { ruleId: id } }), activeSilences(store.driver, now)]);
  return ruleView(rule, states, silences, now);
}

async function checkChannels(store: Store, ids: string[]): Promise<void> {
  const found = await store.prisma.alertChannel.findMany({ where: { id: { in: ids } }, select: { id: true } });
  const missing = ids.filter((id) => !found.some((f) => f.id === id));
  if (missing.length > 0) throw new InvalidInputError(`channelIds: no channel ${missing.join(", ")}`);
}

/** Prisma's unique-constraint error, turned into the API's contract. */
async function uniqueName<T>(what: string, name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new InvalidInputError(`name: ${what} "${name}" already exists`);
    throw error;
  }
}

function ruleData(input: RuleInput) {
  return {
    name: input.name,
    enabled: input.enabled,
    condition: input.condition as unknown as Prisma.InputJsonValue,
    forSeconds: input.forSeconds,
    repeatSeconds: input.repeatSeconds,
    severity: input.severity,
    labels: input.labels,
    summary: input.summary,
    description: input.description,
    runbookUrl: input.runbookUrl,
    channelIds: [...new Set(input.channelIds)],
    groupBy: input.groupBy,
  };
}

export async function createRule(store: Store, input: RuleInput): Promise<RuleView> {
  await checkChannels(store, input.channelIds);
  const id = randomUUID();
  await uniqueName("rule", input.name, () => store.prisma.alertRule.create({ data: { id, ...ruleData(input) } }));
  return getRule(store, id);
}

/**
 * Replaces a rule and keeps its state: the next evaluation judges the new condition, so a firing alert resolves
 * (with its notice) only when the new condition no longer holds.
 */
export async function updateRule(store: Store, id: string, input: RuleInput): Promise<RuleView> {
  await getRule(store, id);
  await checkChannels(store, input.channelIds);
  await uniqueName("rule", input.name, () => store.prisma.alertRule.update({ where: { id }, data: { ...ruleData(input), updatedAt: new Date() } }));
  return getRule(store, id);
}

export async function deleteRule(store: Store, id: string): Promise<void> {
  const { count } = await store.prisma.alertRule.deleteMany({ where: { id } });
  if (count === 0) throw new NotFoundError(`no alert rule ${id}`);
}

function masked(config: ChannelConfig): ChannelConfig {
  const copy: Record<string, unknown> = { ...config };
  for (const field of SECRET_FIELDS) if (copy[field] !== undefined) copy[field] = MASK;
  return copy as ChannelConfig;
}

type ChannelRow = Awaited<ReturnType<Store["prisma"]["alertChannel"]["findFirstOrThrow"]>>;

function channelView(row: ChannelRow): ChannelView {
  return {
    id: row.id,
    name: row.name,
    type: row.type as ChannelType,
    enabled: row.enabled,
    config: masked(row.config as ChannelConfig),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listChannels(store: Store): Promise<ChannelView[]> {
  return (await store.prisma.alertChannel.findMany({ orderBy: { name: "asc" } })).map(channelView);
}

export async function getChannel(store: Store, id: string): Promise<ChannelView> {
  const row = await store.prisma.alertChannel.findUnique({ where: { id } });
  if (!row) throw new NotFoundError(`no alert channel ${id}`);
  return channelView(row);
}

export async function createChannel(store: Store, input: ChannelInput): Promise<ChannelView> {
  if (Object.values(input.config).includes(MASK)) throw new InvalidInputError(`config: "${MASK}" stands for a stored secret; a new channel has none`);
  const id = randomUUID();
  const row = await uniqueName("channel", input.name, () =>
    store.prisma.alertChannel.create({ data: { id, name: input.name, type: input.type, enabled: input.enabled, config: input.config as Prisma.InputJsonValue } }),
  );
  return channelView(row);
}

/** The API never returns secrets, so an edit that sends the mask back keeps the stored secret. */
export async function updateChannel(store: Store, id: string, input: ChannelInput): Promise<ChannelView> {
  const current = await store.prisma.alertChannel.findUnique({ where: { id } });
  if (!current) throw new NotFoundError(`no alert channel ${id}`);
  const config: Record<string, unknown> = { ...input.config };
  const stored = current.config as Record<string, unknown>;
  for (const field of SECRET_FIELDS) {
    if (config[field] !== MASK) continue;
    if (current.type !== input.type || stored[field] === undefined) throw new InvalidInputError(`config.${field}: no stored secret to keep; send the secret itself`);
    config[field] = stored[field];
  }
  const row = await uniqueName("channel", input.name, () =>
    store.prisma.alertChannel.update({
      where: { id },
      data: { name: input.name, type: input.type, enabled: input.enabled, config: config as Prisma.InputJsonValue, updatedAt: new Date() },
    }),
  );
  return channelView(row);
}

/** A channel that rules still send to cannot go: the rules would silently lose their notifications. */
export async function deleteChannel(store: Store, id: string): Promise<void> {
  const users = await store.prisma.alertRule.findMany({ where: { channelIds: { has: id } }, select: { name: true } });
  if (users.length > 0) throw new InvalidInputError(`channel is used by rule(s) ${users.map((u) => u.name).join(", ")}; remove it from them first`);
  const { count } = await store.prisma.alertChannel.deleteMany({ where: { id } });
  if (count === 0) throw new NotFoundError(`no alert channel ${id}`);
}
