/**
 * A sentence with its literals set in `<code>`: what a dictionary marks with backticks (a variable, a header, a
 * key pattern) and what a diagnosis sentence quotes in straight double quotes (the words of a log line, "resend at
 * once"). Both are the same in every language, and a reader searching the logs needs them exactly as written.
 */
export function Literal({ text }: { text: string }) {
  // split with a capturing group puts the literals at the odd indexes.
  const parts = text.split(/(`[^`]+`|"[^"\n]+")/);
  return (
    <>
      {parts.map((part, i) => {
        if (i % 2 === 0) return part;
        if (part.startsWith("`")) return <code key={i}>{part.slice(1, -1)}</code>;
        return (
          <span key={i}>
            &quot;<code>{part.slice(1, -1)}</code>&quot;
          </span>
        );
      })}
    </>
  );
}
