import { withApi } from "@/lib/api/errors.ts";
import { prometheusRulesYaml } from "@/lib/alerts/prometheus-rules.ts";
import { listRules } from "@/lib/alerts/repo.ts";
import { getStore } from "@/lib/store/index.ts";

export const dynamic = "force-dynamic";

export const GET = withApi(
  async () => new Response(prometheusRulesYaml(await listRules(await getStore())), { headers: { "content-type": "application/yaml; charset=utf-8" } }),
);
