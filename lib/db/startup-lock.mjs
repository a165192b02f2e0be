// Replicas may start at the same moment on one empty PostgreSQL database. What a start writes once for the whole
// deployment — the migrations and the first tenant — is done under one session-level advisory lock, held on a
// connection of its own from before the migrations until the first tenant exists (or is found), then released: the
// others wait for it, and find the migrations applied and the tenant created. `npm start` takes it and hands it to the
// server it starts (KINDGI_STARTUP_LOCK=held, released when the server says it has bootstrapped); a server started
// without `npm start` takes it around its bootstrap. A process that dies holding it releases it with its connection.

/** The advisory lock's key (a bigint: the bytes of "kindgi", then 0001). */
export const STARTUP_LOCK_KEY = "7739838812123627521";

/**
 * Takes the startup lock on a connection of its own to `url`, waiting for another process holding it (`onWait` is
 * called once when that happens). Resolves to the function that releases it.
 * @param {string} url
 * @param {{ onWait?: () => void }} [options]
 * @returns {Promise<() => Promise<void>>}
 */
export async function takeStartupLock(url, { onWait } = {}) {
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: url });
  // A connection lost while held releases the lock on the server; nothing to do here but not crash.
  client.on("error", () => {});
  await client.connect();
  try {
    const [{ taken }] = (await client.query("SELECT pg_try_advisory_lock($1::bigint) AS taken", [STARTUP_LOCK_KEY])).rows;
    if (!taken) {
      onWait?.();
      await client.query("SELECT pg_advisory_lock($1::bigint)", [STARTUP_LOCK_KEY]);
    }
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    await client.query("SELECT pg_advisory_unlock($1::bigint)", [STARTUP_LOCK_KEY]).catch(() => {});
    await client.end().catch(() => {});
  };
}

/** Runs `fn` under the startup lock of the database at `url`, released afterwards whatever happens. */
export async function withStartupLock(url, fn, options) {
  const release = await takeStartupLock(url, options);
  try {
    return await fn();
  } finally {
    await release();
  }
}
