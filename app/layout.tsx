import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import { LocaleProvider } from "@/components/LocaleContext.tsx";
import { NavLinks } from "@/components/NavLinks.tsx";
import { SearchBox } from "@/components/SearchBox.tsx";
import { authConfig } from "@/lib/auth/session.ts";
import { requestText } from "@/lib/i18n/request.ts";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "dupscope", template: "%s · dupscope" },
  description: "Why was this message consumed twice?",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const { locale, t } = await requestText();
  const signedIn = authConfig() !== undefined;
  return (
    <html lang={locale}>
      <body>
        <a href="#main" className="skip-link">
          {t.skipToContent}
        </a>
        <header className="top">
          <Link href="/" className="brand">
            {t.brand}
          </Link>
          <NavLinks
            label={t.nav.main}
            links={[
              { href: "/", text: t.nav.overview },
              { href: "/duplicates", text: t.nav.duplicates },
              { href: "/groups", text: t.nav.groups },
              { href: "/alerts", text: t.nav.alerts },
              { href: "/ingest", text: t.nav.ingest },
            ]}
          />
          <SearchBox id="q" label={t.search.label} placeholder={t.search.placeholder} button={t.search.button} />
          <nav aria-label={t.language.label} className="lang">
            <a href="/lang/en" lang="en" aria-current={locale === "en" ? "true" : undefined}>
              {t.language.en}
            </a>
            <a href="/lang/zh-CN" lang="zh-CN" aria-current={locale === "zh-CN" ? "true" : undefined}>
              {t.language.zh}
            </a>
          </nav>
          {signedIn ? (
            <form method="post" action="/logout" className="logout">
              <button type="submit" className="link-button">
                {t.logout}
              </button>
            </form>
          ) : null}
        </header>
        <main id="main" tabIndex={-1}>
          <LocaleProvider locale={locale}>{children}</LocaleProvider>
        </main>
      </body>
    </html>
  );
}
