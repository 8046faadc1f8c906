import { z } from "zod";
import { CAUSES, OUTCOMES } from "../diagnosis/vocabulary.ts";
import type { Prisma } from "../generated/prisma/client.ts";
import type { Store } from "../store/open.ts";
import { ApiError } from "./errors.ts";
import { formatIssues } from "../events/validate.ts";

const time = z.union([z.string().regex(/^\d+$/).transform(Number), z.iso.datetime({ offset: true }).transform((v) => Date.parse(v))]);

export const duplicatesQuerySchema = z
  .object({
    from: time.optional(),
    to: time.optional(),
    group: z.string().min(1).max(255).optional(),
    topic: z.string().min(1).max(255).optional(),
    cause: z.enum(CAUSES).optional(),
    outcome: z.enum(OUTCOMES).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().regex(/^\d+:.+$/, "is not a cursor from a previous page").optional(),
  })
  .strict();

export type DuplicatesQuery = z.infer<typeof duplicatesQuerySchema>;

export function parseDuplicatesQuery(url: URL): DuplicatesQuery {
  const parsed = duplicatesQuerySchema.safeParse(Object.fromEntries(url.searchParams));
  if (!parsed.success) throw new ApiError("unprocessable", formatIssues(parsed.error));
  return parsed.data;
}

export interface DuplicateRow {
  bizKey: string;
  group: string | null;
  topic: string | null;
  cause: string;
  confidence: number;
  outcome: string;
  layer: string | null;
  defect: string | null;
  gapMs: number;
  gapClass: string;
  firstTs: number;
  secondTs: number;
  firstInstance: string | null;
  secondInstance: string | null;
  sameInstance: boolean;
  msgId: string | null;
}

/** Stored verdicts, newest duplicate first, filtered and paged by a keyset cursor (stable while new rows arrive). */
export async function listDuplicates(store: Store, q: DuplicatesQuery): Promise<{ items: DuplicateRow[]; nextCursor: string | null }> {
  const where: Prisma.VerdictWhereInput = {
    ...(q.group ? { group: q.group } : {}),
    ...(q.topic ? { topic: q.topic } : {}),
    ...(q.cause ? { cause: q.cause } : {}),
    ...(q.outcome ? { outcome: q.outcome } : {}),
    ...(q.from !== undefined || q.to !== undefined
      ? { secondTs: { ...(q.from !== undefined ? { gte: BigInt(q.from) } : {}), ...(q.to !== undefined ? { lte: BigInt(q.to) } : {}) } }
      : {}),
  };
  if (q.cursor) {
    const at = q.cursor.indexOf(":");
    const ts = BigInt(q.cursor.slice(0, at));
    const id = q.cursor.slice(at + 1);
    where.OR = [{ secondTs: { lt: ts } }, { secondTs: ts, id: { lt: id } }];
  }
  const rows = await store.prisma.verdict.findMany({ where, orderBy: [{ secondTs: "desc" }, { id: "desc" }], take: q.limit + 1 });
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    items: page.map(({ id: _id, gapMs, firstTs, secondTs, ...rest }) => ({ ...rest, gapMs: Number(gapMs), firstTs: Number(firstTs), secondTs: Number(secondTs) })),
    nextCursor: rows.length > q.limit && last ? `${last.secondTs}:${last.id}` : null,
  };
}
