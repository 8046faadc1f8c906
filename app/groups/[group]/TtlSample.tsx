import type { Locale } from "@/lib/i18n/locale.ts";
import { dictionary } from "@/lib/i18n/dictionary.ts";
import { withRedis } from "@/lib/redis/connect.ts";
import { markerConfig, sampleWithoutTtl, type TtlSample as Sample } from "@/lib/redis/markers.ts";

/** Samples the group's dedup markers in the application's Redis and lists those that never expire. */
export async function TtlSample({ group, locale }: { group: string; locale: Locale }) {
  const t = dictionary(locale).redis;
  const config = markerConfig();
  if (!config) return null;
  let samples: Sample[] = [];
  let failure: string | undefined;
  try {
    samples = await withRedis(config.url, async (redis) => {
      const results: Sample[] = [];
      for (const pattern of config.patterns) results.push(await sampleWithoutTtl(redis, pattern, { group }));
      return results;
    });
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
  }
  const fmt = (n: number) => n.toLocaleString(locale);
  return (
    <section aria-labelledby="ttl-title">
      <h2 id="ttl-title">{t.sampleTitle}</h2>
      {failure ? (
        <p role="alert" className="error-text">
          {t.unreachable(failure)}
        </p>
      ) : (
        samples.map((s) => (
          <div key={s.glob} data-testid="ttl-sample">
            <p className="muted note">
              <code>{s.glob}</code> — {t.sampleNote(fmt(s.scanned))}
            </p>
            {s.withoutTtl.length === 0 ? (
              <p>{t.sampleNone}</p>
            ) : (
              <>
                <p className="error-text">{t.sampleFound(fmt(s.withoutTtl.length))}</p>
                <ul>
                  {s.withoutTtl.slice(0, 10).map((k) => (
                    <li key={k} className="mono">
                      {k}
                    </li>
                  ))}
                </ul>
              </>
            )}
          </div>
        ))
      )}
    </section>
  );
}
