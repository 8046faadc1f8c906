import { getStore } from "@/lib/store/index.ts";
import { searchTarget } from "@/lib/views/search.ts";

export const dynamic = "force-dynamic";

/**
 * Target of the search box: /keys?q=… answers with a redirect to the key page. A msgId or offsetMsgId goes to the
 * key it belongs to, and the page says how it was found; anything unknown lands on the key page's "no events"
 * message. A route handler rather than a page, so the redirect is a real 307 and not a streamed meta refresh.
 */
export async function GET(request: Request) {
  const query = new URL(request.url).searchParams.get("q")?.trim();
  if (!query) return redirect("/");
  return redirect(await searchTarget((await getStore()).driver, query));
}

function redirect(location: string): Response {
  return new Response(null, { status: 307, headers: { location } });
}
