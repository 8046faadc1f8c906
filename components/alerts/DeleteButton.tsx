"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { callApi } from "./api.ts";

export function DeleteButton({ url, what }: { url: string; what: string }) {
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <>
      <button
        type="button"
        className="alerts-button danger"
        disabled={busy}
        onClick={async () => {
          if (!window.confirm(`Delete ${what}?`)) return;
          setBusy(true);
          const problem = await callApi("DELETE", url);
          setBusy(false);
          setError(problem);
          if (!problem) router.refresh();
        }}
      >
        Delete
      </button>
      {error ? (
        <span role="alert" className="alerts-error">
          {error}
        </span>
      ) : null}
    </>
  );
}
