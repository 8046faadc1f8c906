import { Command, InvalidArgumentError } from "commander";
import { FORMATS } from "../collectors/registry.ts";
import { FatalSinkError } from "../lib/ingest/sink.ts";
import { ingestFiles, UsageError } from "./ingest.ts";
import { KeyNotFoundError } from "./errors.ts";
import { registerRabbitmqCommands } from "./rabbitmq-commands.ts";
import { CONTEXT_ROWS_SHOWN } from "../lib/views/context-rows.ts";

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError("must be a positive whole number");
  return n;
}

function repeatable(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function contextOption(value: string): number | "all" {
  if (value === "all") return value;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError("must be all or a whole number ≥ 0");
  return n;
}

/**
 * Each command but ingest, the one run most, loads its code when it runs: the simulator, the diagnosis engine, the
 * probes' database drivers and amqplib took a third of every start-up under tsx.
 */
export function buildProgram(log: (line: string) => void, out: (line: string) => void): Command {
  const program = new Command("dupscope").description("Explains why a message was consumed twice.").showHelpAfterError();

  program
    .command("formats")
    .description("list the input formats dupscope reads")
    .action(() => {
      for (const f of FORMATS) out(`${f.name.padEnd(22)} ${f.description}`);
    });

  program
    .command("ingest")
    .description("parse files in one of the formats and store their events (in a running server, or PostgreSQL)")
    .requiredOption("-f, --format <format>", `input format: auto (told from each file's first lines), ${FORMATS.map((f) => f.name).join(", ")}`)
    .option("-i, --instance <id>", "instance identity for logs whose lines do not carry one (host, ip@pid)")
    .option("--utc-offset <offset>", "UTC offset of zone-less timestamps, e.g. +08:00 (RocketMQ logs default to +08:00, others to Z)")
    .option("--date <yyyy-MM-dd>", "date of lines whose layout prints only a time (default: the file's modification date)")
    .option("--source <name>", "source name stored on each event (default: <format>:<absolute path>)")
    .option("--patterns <file>", "your own patterns for lines no template reads (docs/ingest.md#your-own-patterns; default: $DUPSCOPE_PATTERNS)", process.env.DUPSCOPE_PATTERNS)
    .option("-F, --follow", "keep reading the file as it grows and across rotation, like tail -F (one file)")
    .option("-s, --server <url>", "dupscope server to send to", process.env.DUPSCOPE_SERVER ?? "http://localhost:3000")
    .option("-t, --token <token>", "ingest token of the server (default: $DUPSCOPE_INGEST_TOKEN)", process.env.DUPSCOPE_INGEST_TOKEN)
    .option("-d, --database <url>", "write straight to this PostgreSQL database instead of a server")
    .option("--batch-size <n>", "events per batch", positiveInt, 5000)
    .option("--no-progress", "no progress bar even on a terminal")
    .option("--json", "print the summaries as JSON on stdout")
    .argument("<files...>", "files to read, or - for standard input")
    .action(async (files: string[], opts) => {
      const summaries = await ingestFiles(files, { ...opts, progress: opts.progress && Boolean(process.stderr.isTTY) }, log);
      if (opts.json) out(JSON.stringify(summaries.length === 1 ? summaries[0] : summaries, null, 2));
    });

  program
    .command("explain")
    .description("show what each line of a file became: format and template, the fields read, or why nothing matched")
    .argument("<file>", "the file to explain, or - for standard input")
    .option("-f, --format <format>", `input format: auto or ${FORMATS.map((f) => f.name).join(", ")}`, "auto")
    .option("-i, --instance <id>", "instance identity for logs whose lines do not carry one")
    .option("--utc-offset <offset>", "UTC offset of zone-less timestamps, e.g. +08:00")
    .option("--date <yyyy-MM-dd>", "date of lines whose layout prints only a time")
    .option("--max-lines <n>", "refuse inputs longer than this", positiveInt, 100_000)
    .option("--patterns <file>", "your own patterns, as ingest reads them (default: $DUPSCOPE_PATTERNS)", process.env.DUPSCOPE_PATTERNS)
    .option("--json", "print the explanation as JSON")
    .action(async (file: string, opts) => {
      const { formatExplanation, runExplain } = await import("./explain.ts");
      const explanation = await runExplain(file, opts);
      if (opts.json) out(JSON.stringify(explanation, null, 2));
      else for (const row of formatExplanation(explanation)) out(row);
    });

  program
    .command("diagnose")
    .description("explain the duplicates of one business key: cause, evidence, outcome, what to fix")
    .argument("<bizKey>", "the business key (order id, payment id…)")
    .option("-s, --server <url>", "dupscope server to ask", process.env.DUPSCOPE_SERVER ?? "http://localhost:3000")
    .option("-d, --database <url>", "diagnose straight from this PostgreSQL database instead of a server")
    .option("--lang <lang>", "en or zh-CN", "en")
    .option("--json", "print the whole report as JSON")
    .option("--context <n|all>", "context events the JSON lists: those the evidence cites and the nearest, up to n; or all", contextOption, CONTEXT_ROWS_SHOWN)
    .action(async (bizKey: string, opts) => {
      const { runDiagnose } = await import("./diagnose.ts");
      await runDiagnose(bizKey, opts, out);
    });

  program
    .command("simulate")
    .description("write a labelled scenario in the real formats (traces or OTLP spans, client, broker and dedup logs) plus truth.json")
    .option("--scenario <name>", "scenario name (commit_failed, invisible_timeout and otel: Kafka and RocketMQ 5 as spans), or all for the RocketMQ 4 mix (see lib/simulator/README.md)", "all")
    .option("--keys <n>", "business keys to simulate", positiveInt, 1000)
    .option("--seed <n>", "random seed: the same seed writes the same files", (v) => Number(v), 1)
    .option("--skew-ms <ms>", "largest clock skew between hosts", (v) => Number(v))
    .requiredOption("--out <dir>", "directory to write to")
    .action(async (opts) => {
      const { runSimulate } = await import("./simulate.ts");
      await runSimulate({ scenario: opts.scenario, keys: opts.keys, seed: opts.seed, out: opts.out, ...(opts.skewMs === undefined ? {} : { skewMs: opts.skewMs }) }, log);
    });

  program
    .command("probe")
    .description("look the keys up in the application's business table (read-only) and store one business_effect event per row")
    .requiredOption("-c, --config <file>", "probes file, YAML or JSON (docs/probe.md); database URLs come from the environment variables it names")
    .option("-k, --key <bizKey>", "business key to look up (repeat for more)", repeatable)
    .option("--keys-from-verdicts", "look up the keys of stored duplicates of each probe's group/topic instead")
    .option("--outcome <outcome>", "with --keys-from-verdicts: duplicates with this outcome: unknown, caught, leaked or all", "unknown")
    .option("--since <time>", "with --keys-from-verdicts: duplicates consumed again at or after this time (ISO-8601 or epoch ms)")
    .option("--max-keys <n>", "with --keys-from-verdicts: keys per probe at most, newest first", positiveInt, 1000)
    .option("-p, --probe <name>", "run only this probe of the file (repeat for more)", repeatable)
    .option("-s, --server <url>", "dupscope server to send to (and to read verdicts from)", process.env.DUPSCOPE_SERVER ?? "http://localhost:3000")
    .option("-t, --token <token>", "ingest token of the server (default: $DUPSCOPE_INGEST_TOKEN)", process.env.DUPSCOPE_INGEST_TOKEN)
    .option("-d, --database <url>", "write to (and read verdicts from) this PostgreSQL database instead of a server")
    .option("--dry-run", "print the events as NDJSON on stdout instead of storing them")
    .option("--json", "print the summary as JSON on stdout")
    .action(async (opts) => {
      const { probeFailure, runProbeCommand } = await import("./probe.ts");
      const report = await runProbeCommand(opts, log, out);
      if (opts.json) out(JSON.stringify(report, null, 2));
      const failure = probeFailure(report);
      if (failure !== null) throw new Error(failure);
    });

  registerRabbitmqCommands(program, log, out);

  return program;
}

/** Runs the CLI; returns the exit code (0 ok, 1 failed, 2 usage). */
export async function main(argv: string[]): Promise<number> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const program = buildProgram(log, out).exitOverride();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      log(`dupscope: ${error.message}`);
      return 2;
    }
    if (error instanceof FatalSinkError || error instanceof KeyNotFoundError) {
      log(`dupscope: ${error.message}`);
      return 1;
    }
    const code = (error as { code?: string; exitCode?: number }).code;
    if (typeof code === "string" && code.startsWith("commander.")) return (error as { exitCode: number }).exitCode;
    log(`dupscope: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
