import type { Page } from "playwright-core";
import { dictionary } from "../../lib/i18n/dictionary.ts";

/** What the browser tests read of a page's words, to check that a Chinese page has no English left. */

/** The UI's English words that Chinese says differently (leaves of the dictionary that are text, not sentences with values). */
export function englishOnly(): Set<string> {
  const words = new Set<string>();
  const walk = (en: unknown, zh: unknown) => {
    if (typeof en === "string" && en !== zh) words.add(en.trim());
    else if (typeof en === "object" && en !== null) for (const [key, value] of Object.entries(en)) walk(value, (zh as Record<string, unknown>)[key]);
  };
  walk(dictionary("en"), dictionary("zh-CN"));
  return words;
}

/** Every text a person sees or hears on the page: text nodes and the labels, placeholders and tooltips of elements. */
export async function textsOf(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const texts: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    // Text in <code> is an identifier (a label name, a variable), the same in every language.
    for (let node = walker.nextNode(); node; node = walker.nextNode()) if (!node.parentElement?.closest("code")) texts.push(node.textContent ?? "");
    for (const element of document.body.querySelectorAll("[aria-label], [placeholder], [title]")) {
      for (const name of ["aria-label", "placeholder", "title"]) texts.push(element.getAttribute(name) ?? "");
    }
    return texts.map((t) => t.trim()).filter(Boolean);
  });
}

/**
 * Where English may stay on a Chinese page: identifiers in `<code>`, `<pre>`, `<kbd>` or `<samp>`, and data values
 * (group, topic, instance and rule names, bizKeys, msgIds, a channel's URL) that the components mark with
 * `translate="no"`, HTML's own word for "this is not text of the page's language"; and what an element declares to be
 * in another language (the language switch's "English", `lang="en"`).
 */
export const NOT_WORDS = 'code, pre, kbd, samp, [translate="no"], body [lang]:not([lang^="zh"])';

/**
 * Plain words a Chinese page may still show, each for a reason: the names of products and formats, which Chinese
 * writes in Latin letters too.
 */
export const KEPT_IN_CHINESE: ReadonlyMap<string, string> = new Map([
  ["dupscope", "the product's name"],
  ["Redis", "a product: 'Redis 标记' is how Chinese names the marker"],
  ["Bloom", "a person's name, in the abbreviation of 布隆过滤器 some write"],
  ["RocketMQ", "a product"],
  ["RabbitMQ", "a product"],
  ["Kafka", "a product"],
  ["Prometheus", "a product"],
  ["Alertmanager", "a product"],
  ["Slack", "a product"],
  ["Webhook", "the name Chinese documentation uses for an HTTP callback"],
  ["webhook", "the name Chinese documentation uses for an HTTP callback"],
  ["broker", "RocketMQ's and RabbitMQ's Chinese documentation keep the server's name in English"],
]);

/**
 * The English words of a page's visible text outside {@link NOT_WORDS}, each with the text it stands in. A word is
 * a run of three or more letters that is all lower case after its first letter: identifiers keep their own shapes
 * (camelCase msgId, clientId, offsetMsgId, bizKey; UPPER case UTC, TTL, CSV, DLQ, ACK, TIME_OUT; dotted or
 * underscored config keys such as max.poll.interval.ms) and are the same in every language, as are units (ms).
 */
export async function englishWordsOf(page: Page): Promise<string[]> {
  const texts = await page.evaluate((notWords) => {
    const found: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent === null || parent.closest(`${notWords}, script, style, noscript, template`)) continue;
      // A select shows its chosen option only; the others are seen when it opens, and count too.
      const shown = parent.closest("option") !== null ? parent.closest("select")!.checkVisibility() : parent.checkVisibility({ visibilityProperty: true });
      if (shown && (node.textContent ?? "").trim() !== "") found.push(node.textContent!.trim());
    }
    return found;
  }, NOT_WORDS);
  const words: string[] = [];
  for (const text of texts) {
    // Identifiers run letters together with digits, dots, underscores, @, colons or slashes (10.0.0.5@4121,
    // cg_order_paid, max.poll.interval.ms): taken whole, they are not words. A hyphen joins words ("check-back").
    for (const raw of text.match(/[A-Za-z0-9_.@/:]+/g) ?? []) {
      const token = raw.replace(/^[.:/@]+|[.:/@]+$/g, "");
      if (!/^[A-Za-z][a-z]{2,}$/.test(token) || KEPT_IN_CHINESE.has(token)) continue;
      words.push(`${token} (in "${text.slice(0, 120)}")`);
    }
  }
  return [...new Set(words)];
}
