/**
 * RFC 4180 CSV: fields with a comma, quote or line break are quoted, quotes doubled. A field a spreadsheet would
 * run as a formula (=, +, -, @ first) is prefixed with a quote mark, since keys and instance names come from logs.
 */
export function csvField(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(values: readonly (string | number | boolean | null | undefined)[]): string {
  return `${values.map(csvField).join(",")}\r\n`;
}
