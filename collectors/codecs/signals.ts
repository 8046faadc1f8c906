import { withFields, type DecodedLine, type MessageTemplate, type TemplateFinder, type TemplateMatch } from "./log-record.ts";
import type { TimeLookup } from "./timestamp.ts";

/**
 * Signals before wordings: a fact a diagnosis uses (an offset commit refused, a member fenced, an ack timed out, a
 * channel closed by the broker…) recognised by its stable anchors — error codes and names, exception classes, a
 * client's log context — wherever they sit in the line: inside a client's rendering of the broker's message (a
 * Python repr tuple, a JS `Error`, a Java exception message, a Rust `Display`), in a JSON field, after any prefix.
 * A format tries its exact templates first (they read more: a queue list, an offset pair) and its signals when no
 * template matched, so a relevant line is not lost only because its sentence is new.
 */

export interface Signal<A extends string> {
  /** Shown by `dupscope explain` and kept in `detail.template` as `signal:<name>`. */
  name: string;
  action: A;
  /** The anchors; a literal alternation or bounded gaps only, so a 1 MiB line costs one linear pass. */
  anchor: RegExp;
  /** A line that also matches this states the opposite (a commit that succeeded, a pause): not the fact. */
  unless?: RegExp;
  /** The fact in words, for `dupscope explain`. */
  wording: string;
}

/**
 * A format's signals in priority order, found as templates are: the first signal whose anchor occurs (and whose
 * `unless` does not) names the fact; `read` takes the fields from the whole line. One combined scan rules out the
 * lines that carry no anchor at all, the most of any log.
 */
export class SignalSet<A extends string, D> implements TemplateFinder<D> {
  readonly templates: readonly MessageTemplate<D>[];
  readonly searchesFields = true;
  private readonly any: RegExp;

  constructor(
    readonly signals: readonly Signal<A>[],
    read: (signal: Signal<A>, text: string, line: DecodedLine) => D[] | string | undefined,
    /** A time the line carries outside its prefix (librdkafka's epoch stamp), as MessageTemplate.ownTime. */
    ownTime?: (message: string, text: string) => TimeLookup,
  ) {
    this.any = new RegExp(signals.map((s) => `(?:${s.anchor.source})`).join("|"), "i");
    this.templates = signals.map((signal) => ({
      name: `signal:${signal.name}`,
      head: signal.anchor,
      wording: signal.wording,
      read: (_message, line) => read(signal, withFields(line.envelope), line),
      ...(ownTime ? { ownTime } : {}),
    }));
  }

  find(text: string): TemplateMatch<D> | undefined {
    if (!this.any.test(text)) return undefined;
    for (let i = 0; i < this.signals.length; i++) {
      const signal = this.signals[i]!;
      const m = signal.anchor.exec(text);
      if (!m || signal.unless?.test(text)) continue;
      return { template: this.templates[i]!, index: m.index, message: text.slice(m.index) };
    }
    return undefined;
  }
}
