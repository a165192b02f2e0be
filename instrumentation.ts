// Runs once when the server starts, before it answers requests.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServer } = await import("@/lib/services/server-start");
  await startServer();
}
