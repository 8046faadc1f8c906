import { redirect } from "next/navigation";

/** Target of the search form: /keys?q=ORDER-1 → /keys/ORDER-1. */
export default async function KeySearchPage({ searchParams }: { searchParams: Promise<{ q?: string | string[] }> }) {
  const { q } = await searchParams;
  const key = (Array.isArray(q) ? q[0] : q)?.trim();
  redirect(key ? `/keys/${encodeURIComponent(key)}` : "/");
}
