import { formatDuration } from "@/lib/format/duration.ts";
import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { Literal } from "@/components/Literal.tsx";
import { withRedis } from "@/lib/redis/connect.ts";
import { inspectMarkers, markerConfig, markerKeys, type KeyFacts, type MarkerState } from "@/lib/redis/markers.ts";

/** The key's dedup markers in the application's Redis, when DEDUP_REDIS_URL and a key pattern are configured. */
export async function RedisMarkers({ facts, locale }: { facts: KeyFacts; locale: Locale }) {
  const t = dictionary(locale).redis;
  const config = markerConfig();
  let body;
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
      <div className="table-wrap">
        <table className="data" data-testid="redis-markers">
          <thead>
            <tr>
              <th scope="col">{t.key}</th>
              <th scope="col">{t.exists}</th>
              <th scope="col">{t.ttl}</th>
            </tr>
          </thead>
          <tbody>
            {states!.map((s) => (
              <tr key={s.key}>
                <td className="mono">{s.key}</td>
                <td>{s.exists ? t.exists : t.missing}</td>
                <td>{!s.exists ? "" : s.ttlMs === null ? <strong className="error-text">{t.noTtl}</strong> : formatDuration(s.ttlMs, locale)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
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
