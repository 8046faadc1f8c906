"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

/** The header's page links, with the current section marked for screen readers and the eye. */
export function NavLinks({ label, links }: { label: string; links: { href: string; text: string }[] }) {
  const pathname = usePathname();
  const current = (href: string) => (href === "/" ? pathname === "/" : pathname === href || pathname.startsWith(`${href}/`));
  return (
    <nav aria-label={label} className="nav">
      {links.map((l) => (
        <Link key={l.href} href={l.href} aria-current={current(l.href) ? "page" : undefined}>
          {l.text}
        </Link>
      ))}
    </nav>
  );
}
