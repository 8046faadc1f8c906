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
