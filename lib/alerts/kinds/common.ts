// First: it must run before any of the kinds' schemas is built.
import "./browser-zod.ts";
import { z } from "zod";
import { formatDuration } from "../../format/duration.ts";
import type { Locale } from "../../i18n/locale.ts";

/** The pieces the kinds' schemas and sentences share. */

export const name = z.string().trim().min(1).max(255);
export const windowSeconds = z.number().int().min(60).max(7 * 24 * 3600);
export const count = z.number().int().min(0).max(1e9);
export const percent = z.number().min(0).max(100);

/** A window or silence of the condition, in seconds, as every duration is written (lib/format/duration.ts). */
export const span = (seconds: number, locale: Locale) => formatDuration(seconds * 1000, locale);

type Scoped = { group?: string | undefined; topic?: string | undefined };

/** " in group g, topic t" (en) or "消费组 g、主题 t 中" (zh-CN); "" unscoped. */
export function scope(c: Scoped, locale: Locale): string {
  if (locale === "zh-CN") {
    const parts = [c.group ? `消费组 ${c.group}` : "", c.topic ? `主题 ${c.topic}` : ""].filter(Boolean);
    return parts.length > 0 ? `${parts.join("、")} 中` : "";
  }
  const parts = [c.group ? `group ${c.group}` : "", c.topic ? `topic ${c.topic}` : ""].filter(Boolean);
  return parts.length > 0 ? ` in ${parts.join(", ")}` : "";
}
