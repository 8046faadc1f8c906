/**
 * A plain GET form to /keys, so lookup works before (and without) JavaScript; /keys resolves a msgId or an
 * offsetMsgId to its business key.
 */
export function SearchBox({ id, label, placeholder, button, defaultValue = "", autoFocus = false }: { id: string; label: string; placeholder: string; button: string; defaultValue?: string; autoFocus?: boolean }) {
  return (
    <form className="search" action="/keys" method="get" role="search">
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input id={id} name="q" type="search" required placeholder={placeholder} defaultValue={defaultValue} autoFocus={autoFocus} autoComplete="off" spellCheck={false} />
      <button type="submit">{button}</button>
    </form>
  );
}
