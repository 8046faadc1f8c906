import { InvalidInputError } from "../errors.ts";
import type { Store } from "../store/open.ts";
import { conditionSchema, type Condition } from "./conditions.ts";
import type { Labels } from "./labels.ts";

/** What the page and the API show of the past: firings with their keys, and the notifications that went out or failed. */

export interface FiringView {
  id: string;
  ruleId: string;
  ruleName: string;
  severity: string;
  summary: string;
  /** The rule's condition when it fired; null for firings recorded before it was kept. */
  condition: Condition | null;
  /** The label set of the alert that fired (its rule's group_by values); {} for a rule without group_by. */
  labels: Labels;
  value: number;
  keys: string[];
  firedAt: string;
  resolvedAt: string | null;
}

export interface NotificationView {
  id: string;
  firingId: string;
  ruleId: string;
  ruleName: string;
  channelId: string;
  channelName: string;
  channelType: string;
  event: string;
  status: string;
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
}

export const NOTIFICATION_STATUSES = ["pending", "sent", "failed", "cancelled", "silenced"] as const;

function conditionOf(stored: unknown): Condition | null {
  const parsed = conditionSchema.safeParse(stored);
  return parsed.success ? parsed.data : null;
}

export async function listFirings(store: Store, options: { ruleId?: string; limit: number }): Promise<FiringView[]> {
  const rows = await store.prisma.alertFiring.findMany({
    where: options.ruleId ? { ruleId: options.ruleId } : {},
    orderBy: [{ firedAt: "desc" }, { id: "desc" }],
    take: options.limit,
  });
  return rows.map((f) => ({
    id: String(f.id),
    ruleId: f.ruleId,
    ruleName: f.ruleName,
    severity: f.severity,
    summary: f.summary,
    condition: conditionOf(f.condition),
    labels: f.labels as Labels,
    value: f.value,
    keys: f.keys,
    firedAt: f.firedAt.toISOString(),
    resolvedAt: f.resolvedAt?.toISOString() ?? null,
  }));
}

export async function listNotifications(store: Store, options: { status?: string; ruleId?: string; limit: number }): Promise<NotificationView[]> {
  if (options.status !== undefined && !(NOTIFICATION_STATUSES as readonly string[]).includes(options.status)) {
    throw new InvalidInputError(`status: must be one of ${NOTIFICATION_STATUSES.join(", ")}`);
  }
  const rows = await store.prisma.alertNotification.findMany({
    where: { ...(options.status ? { status: options.status } : {}), ...(options.ruleId ? { ruleId: options.ruleId } : {}) },
    orderBy: { id: "desc" },
    take: options.limit,
  });
  const [rules, channels] = await Promise.all([
    store.prisma.alertRule.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.ruleId))] } }, select: { id: true, name: true } }),
    store.prisma.alertChannel.findMany({ where: { id: { in: [...new Set(rows.map((r) => r.channelId))] } }, select: { id: true, name: true, type: true } }),
  ]);
  return rows.map((n) => {
    const channel = channels.find((c) => c.id === n.channelId);
    return {
      id: String(n.id),
      firingId: String(n.firingId),
      ruleId: n.ruleId,
      ruleName: rules.find((r) => r.id === n.ruleId)?.name ?? n.ruleId,
      channelId: n.channelId,
      channelName: channel?.name ?? n.channelId,
      channelType: channel?.type ?? "",
      event: n.event,
      status: n.status,
      attempts: n.attempts,
      nextAttemptAt: n.nextAttemptAt.toISOString(),
      lastError: n.lastError,
      createdAt: n.createdAt.toISOString(),
      sentAt: n.sentAt?.toISOString() ?? null,
    };
  });
}
