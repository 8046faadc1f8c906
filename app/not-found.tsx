import Link from "next/link";
import { requestText } from "@/lib/i18n/request.ts";

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
