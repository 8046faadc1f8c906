"use client";

import { useEffect, useRef, useState } from "react";

/**
 * State for a controlled `<select>` that keeps a choice made before React hydrated the page. The server renders
 * the forms, so a person (or a browser test) can change a select while the page's script still loads; hydration
 * attaches the handlers without reading the DOM, and the state would stay at its initial value while the select
 * shows the other choice — the form would then show the fields of one choice and save the other.
 */
export function useSelectChoice<T extends string>(initial: T) {
  const ref = useRef<HTMLSelectElement>(null);
  const [value, setValue] = useState<T>(initial);
  useEffect(() => {
    const shown = ref.current?.value;
    if (shown) setValue(shown as T);
  }, []);
  return [value, setValue, ref] as const;
}
