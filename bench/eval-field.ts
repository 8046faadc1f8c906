/**
 * `npm run eval:field`: the field corpus (tests/fixtures/field/, real lines from public sources, each with what a
 * person reads from it) through the registry's parsers. Prints, per format and per template, how many relevant
 * lines were recognised and how many of the fields checked came out right, how many negative controls became
 * rebalances, and every line that failed. `--json` prints the same as JSON; exit code 1 when a threshold
 * (`--min-recognized`, default 0.97) is missed or a negative control became a rebalance. `--corpus DIR` reads another
 * corpus of the same layout: `--corpus tests/fixtures/field-blind-2` is the blind batch, never tuned to (read only its
 * summary lines); field-blind and field-dev-3 are development sets.
 */
import path from "node:path";
import { evaluateFieldCorpus, type Tally } from "../tests/helpers/field-evaluate.ts";

function main(): void {
  const argv = process.argv.slice(2);
  const json = argv.includes("--json");
  const minAt = argv.indexOf("--min-recognized");
  const minRecognized = minAt >= 0 ? Number(argv[minAt + 1]) : 0.97;
  const corpusAt = argv.indexOf("--corpus");
  const e = evaluateFieldCorpus(corpusAt >= 0 ? path.resolve(argv[corpusAt + 1] ?? ".") : undefined);
  const { total, byFormat, byTemplate, failures } = e;
  const recognizedRate = total.relevant === 0 ? 0 : total.recognized / total.relevant;
  const fieldRate = total.fieldsChecked === 0 ? 0 : total.fieldsRight / total.fieldsChecked;
  if (json) {
    console.log(JSON.stringify({ lines: e.lines, total, recognizedRate, fieldRate, negatives: e.negatives, negativesAsRebalance: e.negativesAsRebalance, negativesWithEvents: e.negativesWithEvents, byFormat: Object.fromEntries(byFormat), byTemplate: Object.fromEntries(byTemplate), failures }, null, 2));
  } else {
    const pct = (a: number, b: number) => (b === 0 ? "  -  " : `${((100 * a) / b).toFixed(1).padStart(5)}%`);
    const row = (name: string, t: Tally) =>
      `${name.padEnd(44)} ${`${t.recognized}/${t.relevant}`.padStart(9)} ${pct(t.recognized, t.relevant)}   ${`${t.fieldsRight}/${t.fieldsChecked}`.padStart(9)} ${pct(t.fieldsRight, t.fieldsChecked)}`;
    console.log(`${corpusAt >= 0 ? argv[corpusAt + 1] : "field corpus"}: ${e.lines} lines from ${e.sources} sources\n`);
    console.log(`${"format / template".padEnd(44)} ${"recognised".padStart(9)}          ${"fields right".padStart(9)}`);
    for (const [name, t] of [...byFormat].sort()) console.log(row(name, t));
    console.log("");
    for (const [name, t] of [...byTemplate].sort()) console.log(row(name, t));
    console.log(`\n${row("all relevant lines", total)}`);
    console.log(`negative controls: ${e.negatives}, turned into rebalances: ${e.negativesAsRebalance}, with any event: ${e.negativesWithEvents}`);
    if (failures.length > 0) console.log(`\nlines that fail (${failures.length}):\n${failures.map((f) => `  ${f}`).join("\n")}`);
  }
  if (recognizedRate < minRecognized || e.negativesAsRebalance > 0) process.exitCode = 1;
}

main();
