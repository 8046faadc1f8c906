/**
 * A plain GET form to /keys, so lookup works before (and without) JavaScript; /keys resolves a msgId or an
 * offsetMsgId to its business key. The header's box is the page's search landmark; a second box in a page's
 * content passes `landmark={false}`, since two search landmarks of the same name cannot be told apart.
 */
export function SearchBox({ id, label, placeholder, button, defaultValue = "", autoFocus = false, landmark = true }: { id: string; label: string; placeholder: string; button: string; defaultValue?: string; autoFocus?: boolean; landmark?: boolean }) {
  return (
    <form className="search" action="/keys" method="get" role={landmark ? "search" : undefined}>
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input id={id} name="q" type="search" required placeholder={placeholder} defaultValue={defaultValue} autoFocus={autoFocus} autoComplete="off" spellCheck={false} />
      <button type="submit">{button}</button>
    </form>
  );
}
