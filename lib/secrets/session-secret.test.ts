import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { loadSessionSecret } from "@/lib/secrets/session-secret";

const folders: string[] = [];
/** A data folder path in a fresh temporary folder (removed after the tests), where the key file goes beside it. */
const dataDir = () => {
  const folder = mkdtempSync(path.join(os.tmpdir(), "kindgi-session-"));
  folders.push(folder);
  return path.join(folder, "pgdata");
};
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

describe("loadSessionSecret", () => {
  it("prefers KINDGI_SESSION_SECRET, then NEXTAUTH_SECRET", () => {
    const a = "a".repeat(40);
    const b = "b".repeat(40);
    expect(loadSessionSecret({ KINDGI_SESSION_SECRET: a, NEXTAUTH_SECRET: b }, { dataDir: dataDir() })).toEqual({ secret: a, source: "environment", generated: false });
    expect(loadSessionSecret({ NEXTAUTH_SECRET: b }, { dataDir: dataDir() }).secret).toBe(b);
  });

  it("refuses a short secret", () => {
    expect(() => loadSessionSecret({ KINDGI_SESSION_SECRET: "short" })).toThrow(/KINDGI_SESSION_SECRET must be at least 32 characters/);
  });

  it("generates a 0600 key file beside the data folder, then reuses it", () => {
    const dir = dataDir();
    const first = loadSessionSecret({}, { dataDir: dir });
    expect(first).toMatchObject({ source: "key-file", generated: true });
    const file = path.resolve(dir, "..", "session.key");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8").trim()).toBe(first.secret);
    expect(loadSessionSecret({}, { dataDir: dir })).toEqual({ secret: first.secret, source: "key-file", generated: false });
  });

  it("with PostgreSQL derives the key from KINDGI_SECRETS_KEY, the same on every replica and not the secrets key itself", () => {
    const secretsKey = randomBytes(32).toString("base64");
    const one = loadSessionSecret({ KINDGI_SECRETS_KEY: secretsKey });
    expect(one.source).toBe("derived");
    expect(loadSessionSecret({ KINDGI_SECRETS_KEY: secretsKey }).secret).toBe(one.secret);
    expect(one.secret).not.toBe(secretsKey);
    expect(loadSessionSecret({ KINDGI_SECRETS_KEY: randomBytes(32).toString("base64") }).secret).not.toBe(one.secret);
  });

  it("with PostgreSQL and neither key, says what to set", () => {
    expect(() => loadSessionSecret({})).toThrow(/set KINDGI_SESSION_SECRET/);
  });
});
