import type { Store } from "./open.ts";

export interface StoreOverview {
  events: number;
  recentKeys: { bizKey: string; lastTs: number }[];
}

/** What the home page shows: how much is stored and the keys with the newest events, to click into. */
export async function storeOverview(store: Store, recent = 10): Promise<StoreOverview> {
  const [events, keys] = await Promise.all([
    store.prisma.event.count(),
    store.prisma.event.groupBy({
      by: ["bizKey"],
      where: { bizKey: { not: null } },
      _max: { ts: true },
      orderBy: { _max: { ts: "desc" } },
      take: recent,
    }),
  ]);
  return {
    events,
    recentKeys: keys.flatMap((k) => (k.bizKey === null ? [] : [{ bizKey: k.bizKey, lastTs: Number(k._max.ts ?? 0) }])),
  };
}
