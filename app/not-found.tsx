import type { Metadata } from "next";
import Link from "next/link";
import { requestText } from "@/lib/i18n/request.ts";

export async function generateMetadata(): Promise<Metadata> {
  // The root layout's title template does not apply to its own segment's pages.
  return { title: { absolute: `${(await requestText()).t.states.notFound} · dupscope` } };
}

export default async function NotFound() {
  const { t } = await requestText();
  return (
    <section>
      <h1>{t.states.notFound}</h1>
      <p>{t.states.notFoundBody}</p>
      <p>
        <Link href="/">{t.states.home}</Link>
      </p>
    </section>
  );
}
