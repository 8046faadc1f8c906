import type { Metadata } from "next";
import { headers } from "next/headers";
import Link from "next/link";
import { pathParam } from "@/lib/format/path-param.ts";
import type { Dictionary } from "@/lib/i18n/dictionary.ts";
import { requestText } from "@/lib/i18n/request.ts";
import { getStore } from "@/lib/store/index.ts";
import { groupsLike, UNKNOWN_GROUP_HEADER } from "@/lib/views/group-names.ts";

/** The group name proxy.ts found no data for, when that is why this page shows. */
async function unknownGroup(): Promise<string | null> {
  const raw = (await headers()).get(UNKNOWN_GROUP_HEADER);
  return raw === null ? null : pathParam(raw);
}

export async function generateMetadata(): Promise<Metadata> {
  // The root layout's title template does not apply to its own segment's pages.
  const { t } = await requestText();
  return { title: { absolute: `${(await unknownGroup()) === null ? t.states.notFound : t.groups.unknownTitle} · dupscope` } };
}

const groupLinks = (names: string[]) => (
  <ul className="inline-links" data-testid="group-suggestions">
    {names.map((g) => (
      <li key={g}>
        <Link href={`/groups/${encodeURIComponent(g)}`} className="mono">
          {g}
        </Link>
      </li>
    ))}
  </ul>
);

async function UnknownGroup({ group, t }: { group: string; t: Dictionary }) {
  const { similar, known } = await groupsLike((await getStore()).driver, group);
  return (
    <section data-testid="unknown-group">
      <h1>{t.groups.unknownTitle}</h1>
      <p>{t.groups.unknownBody(group)}</p>
      {similar.length > 0 ? (
        <>
          <p>{t.groups.similar}</p>
          {groupLinks(similar)}
        </>
      ) : known.length > 0 ? (
        <>
          <p>{t.groups.knownGroups}</p>
          {groupLinks(known)}
        </>
      ) : null}
      <p>
        <Link href="/groups">{t.groups.allGroups}</Link>
      </p>
    </section>
  );
}

export default async function NotFound() {
  const { t } = await requestText();
  const group = await unknownGroup();
  if (group !== null) return <UnknownGroup group={group} t={t} />;
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
