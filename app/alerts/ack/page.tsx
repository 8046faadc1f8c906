import type { Metadata } from "next";
import Link from "next/link";
import { SignedAckForm } from "@/components/alerts/SignedAckForm.tsx";
import { ackSigningKey, readAck, type AckClaim } from "@/lib/alerts/acks.ts";
import { labelsText } from "@/lib/alerts/labels.ts";
import { getRule } from "@/lib/alerts/repo.ts";
import { formatTime } from "@/lib/format/time.ts";
import { requestText } from "@/lib/i18n/request.ts";
import { getStore } from "@/lib/store/index.ts";
import "../alerts.css";

export const dynamic = "force-dynamic";

type Props = { searchParams: Promise<{ token?: string; lang?: string | string[] }> };

export async function generateMetadata({ searchParams }: Props): Promise<Metadata> {
  return { title: (await requestText((await searchParams).lang)).t.alerts.ackPage.title };
}

/** Where a notification's acknowledge link leads: what it is for, and a form to confirm who acknowledges. */
export default async function AckPage({ searchParams }: Props) {
  const { token, lang } = await searchParams;
  const { locale, t: d } = await requestText(lang);
  const t = d.alerts.ackPage;
  const store = await getStore();
  let claim: AckClaim | undefined;
  let problem = "";
  try {
    claim = readAck(await ackSigningKey(store.driver), token ?? "");
  } catch (error) {
    problem = (error as Error).message;
  }
  const rule = claim ? await getRule(store, claim.ruleId).catch(() => undefined) : undefined;
  const set = claim ? labelsText(claim.labels) : "";
  const what = rule ? `${rule.name} ${set ? `{${set}}` : d.alerts.alertsTable.wholeRule}` : "";
  return (
    <>
      <h1>{t.title}</h1>
      {claim && rule ? (
        <>
          <p>{t.alert(rule.name, set ? `{${set}}` : d.alerts.alertsTable.wholeRule)}</p>
          <p className="muted">
            {t.intro} {t.expires(formatTime(claim.expiresAt, { precision: "min", zone: true }))}
          </p>
          <SignedAckForm token={token!} what={what} locale={locale} />
        </>
      ) : (
        <p role="alert">{t.invalid(problem || `no alert rule ${claim?.ruleId ?? ""}`)}</p>
      )}
      <p>
        <Link href="/alerts">{t.toAlerts}</Link>
      </p>
    </>
  );
}
