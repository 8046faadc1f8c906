import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";

/**
 * The field corpus: real lines from public sources (issue threads, mailing-list pastes, upstream test sources and
 * docs), one JSON object per line in `<family>/<format>.jsonl` (or with a `format` field of its own in
 * `layouts/`) under tests/fixtures/field/, each with its provenance and what a person reads from it. Its README.md
 * says how it was collected.
 */

const Expectation = z.union([
  z
    .object({
      kind: z.string(),
      action: z.string(),
      time: z.string().optional(),
      group: z.string().optional(),
      topic: z.string().optional(),
      partitions: z.array(z.string()).optional(),
      queues: z.array(z.string()).optional(),
      clientId: z.string().optional(),
      memberId: z.string().optional(),
      generation: z.number().optional(),
      msgId: z.string().optional(),
      offsetMsgId: z.string().optional(),
      queueOffset: z.number().optional(),
      retryTimes: z.number().optional(),
      connection: z.string().optional(),
      channel: z.number().optional(),
      consumerTag: z.string().optional(),
      vhost: z.string().optional(),
      user: z.string().optional(),
      timeoutMs: z.number().optional(),
      heartbeatTimeoutS: z.number().optional(),
      reason: z.string().optional(),
      exception: z.string().optional(),
      level: z.string().optional(),
    })
    .passthrough(),
  z.object({ negative: z.string() }),
  z.object({ irrelevant: z.literal(true) }),
]);

const FieldLine = z.object({
  text: z.string().min(1),
  source: z.string().min(1),
  where: z.string(),
  client: z.string(),
  layout: z.string(),
  format: z.string().optional(),
  expect: Expectation,
});

export type FieldExpectation = z.infer<typeof Expectation>;

export interface FieldCase extends z.infer<typeof FieldLine> {
  id: string;
  format: string;
  file: string;
  lineInFile: number;
}

const ROOT = path.join(import.meta.dirname, "..", "fixtures", "field");

export function loadFieldCorpus(root = ROOT): FieldCase[] {
  const cases: FieldCase[] = [];
  for (const family of readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const name of readdirSync(path.join(root, family.name)).filter((n) => n.endsWith(".jsonl")).sort()) {
      const file = path.join(family.name, name);
      readFileSync(path.join(root, file), "utf8")
        .split("\n")
        .forEach((text, i) => {
          if (text.trim() === "") return;
          const parsed = FieldLine.safeParse(JSON.parse(text));
          if (!parsed.success) throw new Error(`${file}:${i + 1}: ${parsed.error.message}`);
          const format = parsed.data.format ?? name.replace(/\.jsonl$/, "");
          cases.push({ ...parsed.data, format, id: `${file}:${i + 1}`, file, lineInFile: i + 1 });
        });
    }
  }
  return cases;
}
