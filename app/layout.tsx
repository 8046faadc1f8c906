import type { Metadata } from "next";
import type { ReactNode } from "react";
import Link from "next/link";
import { SearchBox } from "@/components/SearchBox.tsx";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "dupscope", template: "%s · dupscope" },
  description: "Why was this message consumed twice?",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header className="top">
          <Link href="/" className="brand">
            dupscope
          </Link>
          <SearchBox />
        </header>
        <main>{children}</main>
      </body>
    </html>
  );
}
