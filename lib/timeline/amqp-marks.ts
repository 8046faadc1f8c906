import type { DetailValue, NormalizedEvent } from "../events/model.ts";

/**
 * What the broker did to a RabbitMQ message on its way round, read from the headers it wrote into the message
 * (collectors/rabbitmq-firehose/headers.ts): `x-death` when it dead-lettered the message, `x-shovelled` when a
 * shovel moved it. Notes are technical words for a mark's tooltip, not sentences.
 */

type Entry = { [key: string]: DetailValue };

function entries(value: DetailValue | undefined): Entry[] {
  return Array.isArray(value) ? value.filter((v): v is Entry => v !== null && typeof v === "object" && !Array.isArray(v)) : [];
}

const text = (value: DetailValue | undefined): string | null => (typeof value === "string" && value !== "" ? value : null);

export interface DeadLetter {
  event: NormalizedEvent;
  /** `rejected orders → orders.dlq`: why and from which queue, and where the copy was seen. */
  note: string;
}

/**
 * Dead-lettering publishes no trace of its own, so the first of the key's records that carries a death stands for
 * it; the copies after it carry the same entry. x-death lists the latest death first, and a message dead-lettered
 * again from the same queue for the same reason counts up in that entry, so each count is a death of its own.
 */
export function deadLetters(events: readonly NormalizedEvent[]): DeadLetter[] {
  const seen = new Set<string>();
  const found: DeadLetter[] = [];
  for (const e of [...events].sort((a, b) => a.ts - b.ts)) {
    const [death] = entries(e.detail.xDeath);
    if (!death) continue;
    const id = JSON.stringify([death.queue, death.reason, death.count]);
    if (seen.has(id)) continue;
    seen.add(id);
    const from = text(death.queue);
    const moved = e.queue !== null && e.queue !== from ? ` → ${e.queue}` : "";
    found.push({ event: e, note: `${[text(death.reason), from].filter(Boolean).join(" ")}${moved}` });
  }
  return found;
}

/** `orders-replay orders.dlq → orders`: the shovel that moved the copy, from where to where; null when none did. */
export function shovelNote(e: NormalizedEvent): string | null {
  const [shovel] = entries(e.detail.xShovelled);
  if (!shovel) return null;
  const from = text(shovel.srcQueue) ?? text(shovel.srcExchange);
  const to = text(shovel.destQueue) ?? text(shovel.destExchange);
  return [text(shovel.name), from !== null && to !== null ? `${from} → ${to}` : (from ?? to)].filter(Boolean).join(" ");
}
