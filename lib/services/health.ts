import { getDb } from "@/lib/db";
import { databaseConfig } from "@/lib/db/config";

/** Which database this server uses, after checking that it answers. Never reveals credentials. */
export async function checkHealth() {
  const config = databaseConfig();
  const db = await getDb();
  await db.$queryRaw`SELECT 1`;
  const location = config.kind === "pglite" ? config.dataDir : (() => {
    const url = new URL(config.url);
    return `${url.hostname}:${url.port || "5432"}${url.pathname}`;
  })();
  return { status: "ok" as const, version: process.env.npm_package_version ?? "0.1.0", database: { kind: config.kind, location } };
}
