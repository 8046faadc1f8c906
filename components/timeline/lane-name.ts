import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import type { Lane } from "@/lib/timeline/to-lanes.ts";

/**
 * A lane's name as the page shows it. A RabbitMQ channel reads "invoice-worker-a · 127.0.0.1:34170 · channel 1"
 * (the client's name for its connection, its address, the channel) rather than the broker's
 * `127.0.0.1:34170 -> 127.0.0.1:5672@1`, which stays the lane's identity; every other lane shows its label.
 */
export function laneName(lane: Lane, t: Dictionary): string {
  if (lane.channel === null) return lane.label;
  const { client, peer, channel } = lane.channel;
  return [client, peer, channel === null ? null : t.timeline.channel(channel)].filter((part) => part !== null).join(" · ");
}
