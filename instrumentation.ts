// Runs once when the server starts, before it answers requests. A failure here is fatal: the process exits non-zero
// with the message on stderr (lib/services/server-start.ts), rather than staying up with every request failing.
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  // The HTTP front that `npm start` loads (scripts/http-edge.mjs) answers 405s before Next.js: it needs the method table.
  const { allowedMethods } = await import("@/lib/api/method-table");
  (globalThis as { [key: symbol]: { setAllowedMethods?: (lookup: typeof allowedMethods) => void } | undefined })[Symbol.for("kindgi.http-edge")]?.setAllowedMethods?.(allowedMethods);
  const { startServerOrExit } = await import("@/lib/services/server-start");
  await startServerOrExit();
}
