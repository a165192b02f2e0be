// Runs once when the server starts, before it answers requests. A failure here is fatal: the process exits non-zero
// with the message on stderr (lib/services/server-start.ts), rather than staying up with every request failing.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startServerOrExit } = await import("@/lib/services/server-start");
  await startServerOrExit();
}
