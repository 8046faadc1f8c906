import { formatDuration } from "@/lib/format/duration.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { DataTable, type Column } from "@/components/DataTable.tsx";
import { Literal } from "@/components/Literal.tsx";
import { withRedis } from "@/lib/redis/connect.ts";
import { inspectMarkers, markerConfig, markerKeys, type KeyFacts, type MarkerState } from "@/lib/redis/markers.ts";

/** The key's dedup markers in the application's Redis, when DEDUP_REDIS_URL and a key pattern are configured. */
export async function RedisMarkers({ facts, locale }: { facts: KeyFacts; locale: Locale }) {
  const t = dictionary(locale).redis;
  const config = markerConfig();
  let body;
  // A marker's key holds the group and the bizKey, long and without spaces: it wraps rather than widen the box.
  const columns: Column<MarkerState>[] = [
    { id: "key", data: true, header: t.key, mono: true, wrap: "id", title: (s) => s.key, cell: (s) => s.key },
    { id: "exists", header: t.exists, cell: (s) => (s.exists ? t.exists : t.missing) },
    {
      id: "ttl",
      header: t.ttl,
      cell: (s) => (!s.exists ? "" : s.ttlMs === null ? <strong className="error-text">{t.noTtl}</strong> : formatDuration(s.ttlMs, locale)),
    },
  ];
  if (!config) {
    body = (
      <p className="muted">
        <Literal text={t.notConfigured} />
      </p>
    );
  } else {
    let states: MarkerState[] | undefined;
    let failure: string | undefined;
    try {
      states = await withRedis(config.url, (redis) => inspectMarkers(redis, markerKeys(config.patterns, facts)));
    } catch (error) {
      failure = error instanceof Error ? error.message : String(error);
    }
    body = failure ? (
      <p role="alert" className="error-text">
        {t.unreachable(failure)}
      </p>
    ) : (
      <DataTable columns={columns} rows={states!} rowKey={(s) => s.key} testId="redis-markers" />
    );
  }
  return (
    <section aria-labelledby="redis-title">
      <h2 id="redis-title">{t.title}</h2>
      <p className="muted note">{t.note}</p>
      {body}
    </section>
  );
}
