import { randomBytes } from "node:crypto";
import { freshPostgresDatabase, newOperatorToken, startServer, type RunningServer } from "./server";

/** Replicas of the product (two unless asked for more) on one PostgreSQL database of their own, with the credentials they were started with. */
export type Replicas = {
  a: RunningServer;
  b: RunningServer;
  /** Every replica, in start order (`a` and `b` are the first two). */
  servers: RunningServer[];
  databaseUrl: string;
  operatorToken: string;
  /** KINDGI_BOOTSTRAP_API_KEY: the first tenant's admin key. */
  bootstrapKey: string;
  adminEmail: string;
  /** Stops every server and drops the database. */
  stop: () => Promise<void>;
};

/**
 * Starts `count` (default 2, at least 2) `npm start` processes at the same moment on a fresh, empty database on the test PostgreSQL server
 * (KINDGI_TEST_DATABASE_URL), with the same environment as the integration tests' server (tests/global-setup.ts) and
 * the same keys on all, as replicas behind a load balancer have. `env` adds to or overrides that environment.
 */
export async function startReplicas(options: { env?: Record<string, string | undefined>; count?: number } = {}): Promise<Replicas> {
  const count = options.count ?? 2;
  if (!Number.isInteger(count) || count < 2) throw new Error(`replicas: count must be an integer of at least 2, not ${count}`);
  const base = process.env.KINDGI_TEST_DATABASE_URL;
  if (!base) throw new Error("replicas need PostgreSQL: set KINDGI_TEST_DATABASE_URL");
  const database = await freshPostgresDatabase(base);
  const operatorToken = newOperatorToken();
  const bootstrapKey = `kgi_replicas${Date.now()}${randomBytes(8).toString("hex")}`.slice(0, 44);
  const adminEmail = `replica-admin-${Date.now()}@example.test`;
  const env = {
    DATABASE_URL: database.url,
    KINDGI_OPERATOR_TOKEN: operatorToken,
    KINDGI_BOOTSTRAP_API_KEY: bootstrapKey,
    KINDGI_ADMIN_EMAIL: adminEmail,
    KINDGI_ADMIN_PASSWORD: "replica-admin-password",
    KINDGI_DEV_PROVIDERS: "1",
    KINDGI_ALLOW_PRIVATE_PROVIDER_URLS: "1",
    KINDGI_NOTIFICATIONS_ALLOW_PRIVATE_URLS: "1",
    KINDGI_NOTIFICATION_RETRY_BASE_MS: "300",
    KINDGI_SECRETS_KEY: randomBytes(32).toString("base64"),
    KINDGI_SESSION_SECRET: randomBytes(32).toString("base64"),
    KINDGI_ALLOWED_ORIGINS: "https://console.example.test",
    ...options.env,
  };
  const started = await Promise.allSettled(Array.from({ length: count }, () => startServer({ env })));
  const running = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
  const failed = started.flatMap((result) => (result.status === "rejected" ? [result.reason as Error] : []));
  if (failed.length) {
    await Promise.all(running.map((server) => server.stop()));
    await database.drop();
    throw new Error(`${failed.length} of ${count} replicas did not start:\n${failed.map((error) => error.message).join("\n---\n")}`);
  }
  const [a, b] = running;
  return {
    a,
    b,
    servers: running,
    databaseUrl: database.url,
    operatorToken,
    bootstrapKey,
    adminEmail,
    stop: async () => {
      await Promise.all(running.map((server) => server.stop()));
      await database.drop();
    },
  };
}
