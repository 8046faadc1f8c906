-- A key delivered in groups A and B of topic T counts once in (A,T), (B,T), A, B, T and the total. The rows of each
-- scope are now generated once per key, where every scope was generated for every (group, topic) pair and the
-- repeats removed with DISTINCT: that sort, of four rows a key keyed by the key's id, was most of the rollup trigger,
-- which was a third of the key_diagnoses upsert in a save of 1,000 keys
-- (docs/performance.md#the-key-rollups-without-a-sort). A key's groups and topics hold no repeats
-- (lib/diagnosis-queue/queue.ts writes each once).
CREATE OR REPLACE FUNCTION "dupscope_roll_keys"("rows" "key_diagnoses"[], "sign" INTEGER) RETURNS void LANGUAGE sql AS $$
    WITH k AS (
        SELECT (r."last_ts" / 60000) * 60000 AS "minute", r."lost",
               CASE WHEN cardinality(r."groups") = 0 THEN ARRAY['']::text[] ELSE r."groups" END AS "groups",
               CASE WHEN cardinality(r."topics") = 0 THEN ARRAY['']::text[] ELSE r."topics" END AS "topics"
          FROM unnest("rows") AS r
    ), split AS (
        SELECT k."minute", k."lost", 0::smallint AS "scope", g.name AS "g", t.name AS "t"
          FROM k, unnest(k."groups") AS g(name), unnest(k."topics") AS t(name)
        UNION ALL
        SELECT k."minute", k."lost", 1::smallint, g.name, '' FROM k, unnest(k."groups") AS g(name)
        UNION ALL
        SELECT k."minute", k."lost", 2::smallint, '', t.name FROM k, unnest(k."topics") AS t(name)
        UNION ALL
        SELECT k."minute", k."lost", 3::smallint, '', '' FROM k
    )
    INSERT INTO "key_rollups" AS r ("minute", "scope", "group_name", "topic", "keys", "lost")
        SELECT "minute", "scope", "g", "t", "sign" * count(*), "sign" * sum("lost") FROM split
         GROUP BY 1, 2, 3, 4 ORDER BY 2, 3, 4, 1
        ON CONFLICT ("scope", "group_name", "topic", "minute") DO UPDATE SET
            "keys" = r."keys" + EXCLUDED."keys", "lost" = r."lost" + EXCLUDED."lost"
$$;
