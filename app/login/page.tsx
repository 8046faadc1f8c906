import type { Metadata } from "next";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { authConfig, isLoopback, safeNext } from "@/lib/auth/session.ts";
import { requestText } from "@/lib/i18n/request.ts";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<{ next?: string; error?: string; retry?: string }> };

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await requestText()).t.login.title };
}

export default async function LoginPage({ searchParams }: Props) {
  const { next, error, retry } = await searchParams;
  if (!authConfig()) redirect(safeNext(next));
  const { t } = await requestText();
  const head = await headers();
  const hostname = (head.get("host") ?? "localhost").replace(/:\d+$/, "");
  // `next start` speaks plain HTTP; HTTPS means a TLS proxy in front. Without it the browser drops the Secure
  // cookie on any host but loopback, and login would loop: say why.
  const plainHttp = head.get("x-forwarded-proto")?.split(",")[0]?.trim() !== "https" && !isLoopback(hostname);
  return (
    <section className="login">
      <h1>{t.login.title}</h1>
      <p className="muted">{t.login.intro}</p>
      {plainHttp ? <p role="alert" className="warning">{t.login.needsHttps}</p> : null}
      {error ? (
        <p role="alert" className="error-text">
          {error === "locked" ? t.login.lockedOut.replace("{minutes}", String(Math.max(1, Math.ceil(Number(retry) / 60) || 1))) : t.login.wrong}
        </p>
      ) : null}
      <form method="post" action="/api/v1/session" className="login-form">
        <input type="hidden" name="next" value={safeNext(next)} />
        <label htmlFor="password">{t.login.password}</label>
        <input id="password" name="password" type="password" autoComplete="current-password" required autoFocus />
        <button type="submit">{t.login.submit}</button>
      </form>
    </section>
  );
}
