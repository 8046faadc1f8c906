/**
 * Prometheus-like alert states. A breach starts `pending`; held for `for` it becomes `firing`; when it ends a
 * firing alert becomes `resolved` and a pending one goes back to `inactive` unannounced, as in Prometheus. Only
 * firing and resolved are notified, plus a reminder every `repeat` while firing. Pure: the evaluator stores
 * what this returns, and a restart resumes from the stored state.
 */

export const ALERT_STATES = ["inactive", "pending", "firing", "resolved"] as const;
export type AlertStateName = (typeof ALERT_STATES)[number];

export interface StoredState {
  state: AlertStateName;
  /** When the current breach began (pending or firing), else null. */
  activeSince: number | null;
  lastNotifiedAt: number | null;
}

export type Notify = "firing" | "resolved" | "repeat" | null;

export interface Transition {
  next: StoredState;
  notify: Notify;
}

export function transition(prev: StoredState, active: boolean, now: number, forMs: number, repeatMs: number): Transition {
  if (!active) {
    if (prev.state === "firing") return { next: { state: "resolved", activeSince: null, lastNotifiedAt: now }, notify: "resolved" };
    if (prev.state === "pending") return { next: { state: "inactive", activeSince: null, lastNotifiedAt: prev.lastNotifiedAt }, notify: null };
    return { next: prev, notify: null };
  }
  if (prev.state === "firing") {
    const due = repeatMs > 0 && prev.lastNotifiedAt !== null && now - prev.lastNotifiedAt >= repeatMs;
    return due ? { next: { ...prev, lastNotifiedAt: now }, notify: "repeat" } : { next: prev, notify: null };
  }
  const since = prev.state === "pending" && prev.activeSince !== null ? prev.activeSince : now;
  if (now - since >= forMs) return { next: { state: "firing", activeSince: since, lastNotifiedAt: now }, notify: "firing" };
  return { next: { state: "pending", activeSince: since, lastNotifiedAt: prev.lastNotifiedAt }, notify: null };
}
