import { InvalidArgumentError, type Command } from "commander";
import type { CollectOptions } from "./rabbitmq.ts";

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError("must be a positive whole number");
  return n;
};
const repeatable = (value: string, previous: string[]) => [...previous, value];

/**
 * The `rabbitmq` command group of the dupscope CLI. The commands' code (amqplib, the collector) is loaded when one
 * runs, so other commands do not pay for it at start-up.
 */
export function registerRabbitmqCommands(program: Command, log: (line: string) => void, out: (line: string) => void): void {
  const rabbitmq = program.command("rabbitmq").description("RabbitMQ: switch on the firehose and event exchange, and collect from them");
  rabbitmq
    .command("setup")
    .description("print (with --apply run, on a broker node) rabbitmq-plugins enable rabbitmq_event_exchange and rabbitmqctl trace_on per vhost")
    .option("--vhost <vhost>", "a vhost to trace (repeatable; default /)", repeatable, [])
    .option("--apply", "run the commands instead of printing them")
    .action(async (opts: { vhost: string[]; apply?: boolean }) => {
      const { runSetup } = await import("./rabbitmq.ts");
      await runSetup({ vhosts: opts.vhost.length > 0 ? opts.vhost : ["/"], apply: Boolean(opts.apply) }, log, out);
    });
  rabbitmq
    .command("collect")
    .description("consume the firehose and event exchange of each vhost and store the events (in a running server, or PostgreSQL)")
    .option("--url <url>", "broker URL without vhost", process.env.DUPSCOPE_RABBITMQ_URL ?? "amqp://guest:guest@127.0.0.1:5672")
    .option("--vhost <vhost>", "a vhost to collect (repeatable; default /)", repeatable, [])
    .option("--key <source>", "where the business key is: message_id, correlation_id, header:<name> or json:$.path", "message_id")
    .option("--queue <name>", "the collector's own queue in each vhost (default dupscope.collector)")
    .option("--max-length <n>", "messages the collector's queue holds before the broker drops the oldest (default 100000)", positiveInt)
    .option("--record <file>", "also append every record to this NDJSON file (replays with ingest --format rabbitmq-firehose)")
    .option("--trace-on", "run rabbitmqctl trace_on -p <vhost> after every (re)connect (a collector on the broker host)")
    .option("-s, --server <url>", "dupscope server to send to", process.env.DUPSCOPE_SERVER ?? "http://localhost:3000")
    .option("-t, --token <token>", "ingest token of the server (default: $DUPSCOPE_INGEST_TOKEN)", process.env.DUPSCOPE_INGEST_TOKEN)
    .option("-d, --database <url>", "write straight to this PostgreSQL database instead of a server")
    .action(async (opts: CollectOptions) => {
      const { runCollect } = await import("./rabbitmq.ts");
      await runCollect(opts, log);
    });
}
