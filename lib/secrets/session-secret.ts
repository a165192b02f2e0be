/**
 * The key that signs and encrypts console sessions (next-auth JWTs). In order:
 * `KINDGI_SESSION_SECRET` or `NEXTAUTH_SECRET` when set (at least 32 characters); in embedded mode the key in
 * `<dataDir>/../session.key` (mode 0600, created on first start); with PostgreSQL and no session secret, a key
 * derived from `KINDGI_SECRETS_KEY` (HKDF-SHA256), so every replica that shares the secrets key shares sessions.
 * Without any of these it throws with what to set.
 */
import { hkdfSync } from "node:crypto";
import path from "node:path";
import { databaseConfig } from "@/lib/db/config";
import { loadSecretsKey, readOrCreateKeyFile } from "@/lib/secrets/crypto";

const MIN_LENGTH = 32;

export type SessionSecret = { secret: string; source: "environment" | "key-file" | "derived"; generated: boolean };

export function loadSessionSecret(env: Record<string, string | undefined> = process.env, options: { dataDir?: string } = {}): SessionSecret {
  for (const name of ["KINDGI_SESSION_SECRET", "NEXTAUTH_SECRET"]) {
    const value = env[name]?.trim();
    if (!value) continue;
    if (value.length < MIN_LENGTH) throw new Error(`${name} must be at least ${MIN_LENGTH} characters (openssl rand -base64 32)`);
    return { secret: value, source: "environment", generated: false };
  }
  if (options.dataDir) {
    const { key, generated } = readOrCreateKeyFile(path.resolve(options.dataDir, "..", "session.key"));
    return { secret: key.toString("base64"), source: "key-file", generated };
  }
  if (env.KINDGI_SECRETS_KEY?.trim()) {
    const { key } = loadSecretsKey(env);
    const derived = Buffer.from(hkdfSync("sha256", key, Buffer.alloc(0), "kindgi console session", 32));
    return { secret: derived.toString("base64"), source: "derived", generated: false };
  }
  throw new Error("console sign-in needs a session key with DATABASE_URL: set KINDGI_SESSION_SECRET (32+ random characters, e.g. openssl rand -base64 32) or KINDGI_SECRETS_KEY");
}

let cached: string | undefined;

/** This process's session key (see {@link loadSessionSecret}), read once. */
export function sessionSecret(): string {
  if (!cached) {
    const config = databaseConfig();
    cached = loadSessionSecret(process.env, { dataDir: config.kind === "pglite" ? config.dataDir : undefined }).secret;
  }
  return cached;
}

/** Why this process has no session key (console sign-in is then off and API keys still work), or null when it has one. */
export function sessionSecretProblem(): string | null {
  try {
    sessionSecret();
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
