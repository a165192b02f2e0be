// Dropping a throwaway PostgreSQL database (a test's, a benchmark's, the migration engine's shadow database).

/**
 * Drops database `name` through the connected `admin` client, ending any session still on it (`WITH (FORCE)`).
 * PostgreSQL refuses FORCE (42501, "must be a member of the role whose process is being terminated…") while an
 * autovacuum worker happens to be in that database, since a role without `pg_signal_backend` may not end it; the
 * worker soon finishes on its own, so the drop is tried again every `delayMs` up to `attempts` times. (A session of a
 * superuser or of another role in that database is refused with the same code; it fails after those attempts.)
 */
export async function dropDatabase(admin, name, { attempts = 40, delayMs = 250 } = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      await admin.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`);
      return;
    } catch (error) {
      if (error?.code !== "42501" || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
  }
}
