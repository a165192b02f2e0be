// Runs once when the server starts, before it answers requests. A failure here is fatal: the process exits non-zero
// with the message on stderr, rather than staying up with every request failing on the same error.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  try {
    const { startServer } = await import("@/lib/services/server-start");
    await startServer();
  } catch (error) {
    console.error(`kindgi: the server cannot start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
