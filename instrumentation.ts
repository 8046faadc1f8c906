export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { openStoreAtStartup } = await import("./instrumentation-node.ts");
    await openStoreAtStartup();
  }
}
