/** Sends a JSON request to the alerts API and returns its error message, or null when it succeeded. */
export async function callApi(method: "POST" | "PUT" | "DELETE", url: string, body?: unknown): Promise<string | null> {
  try {
    const response = await fetch(url, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } }),
    });
    if (response.ok) return null;
    const parsed = (await response.json().catch(() => null)) as { error?: { message?: string } } | null;
    return parsed?.error?.message ?? `${response.status} ${response.statusText}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
