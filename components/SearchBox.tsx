/** A plain GET form, so lookup works before (and without) JavaScript. */
export function SearchBox({ defaultValue = "", autoFocus = false }: { defaultValue?: string; autoFocus?: boolean }) {
  return (
    <form className="search" action="/keys" method="get" role="search">
      <label htmlFor="q" className="visually-hidden" hidden>
        Business key
      </label>
      <input id="q" name="q" type="search" required placeholder="bizKey, e.g. ORDER-20261130-0001" defaultValue={defaultValue} autoFocus={autoFocus} aria-label="Business key" />
      <button type="submit">Look up</button>
    </form>
  );
}
