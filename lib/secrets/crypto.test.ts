import { afterEach, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { decryptSecret, encryptSecret, loadSecretsKey, secretAad } from "./crypto";

const key = randomBytes(32);
const aad = secretAad({ tenantId: "t1", name: "github-token", version: 1 });
const tempDirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "kindgi-secrets-"));
  tempDirs.push(dir);
  return dir;
}

afterEach(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("encryptSecret / decryptSecret", () => {
  it("round-trips, with a fresh IV each time and no plaintext in the envelope", () => {
    const first = encryptSecret("ghp_plaintext ✓", key, aad);
    const second = encryptSecret("ghp_plaintext ✓", key, aad);
    expect(first).toMatch(/^v1:[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
    expect(first).not.toContain("plaintext");
    expect(decryptSecret(first, key, aad)).toBe("ghp_plaintext ✓");
    expect(decryptSecret(encryptSecret("", key, aad), key, aad)).toBe("");
  });

  it("fails with a wrong key, without revealing anything", () => {
    const envelope = encryptSecret("value", key, aad);
    expect(() => decryptSecret(envelope, randomBytes(32), aad)).toThrow(/could not be decrypted/);
  });

  it("fails when the envelope is moved to another tenant, name or version", () => {
    const envelope = encryptSecret("value", key, aad);
    for (const other of [
      { tenantId: "t2", name: "github-token", version: 1 },
      { tenantId: "t1", name: "other", version: 1 },
      { tenantId: "t1", name: "github-token", version: 2 },
    ]) {
      expect(() => decryptSecret(envelope, key, secretAad(other))).toThrow(/could not be decrypted/);
    }
  });

  it("fails when the ciphertext, tag or iv is altered, or the envelope is malformed", () => {
    const raw = Buffer.from(encryptSecret("value", key, aad).slice(3), "base64url");
    for (const index of [0, 12, raw.length - 1]) {
      const tampered = Buffer.from(raw);
      tampered[index] ^= 1;
      expect(() => decryptSecret(`v1:${tampered.toString("base64url")}`, key, aad)).toThrow(/could not be decrypted/);
    }
    expect(() => decryptSecret("v2:abc", key, aad)).toThrow(/malformed/);
    expect(() => decryptSecret("v1:abc", key, aad)).toThrow(/too short/);
  });

  it("refuses a key that is not 32 bytes", () => {
    expect(() => encryptSecret("value", randomBytes(16), aad)).toThrow("the secrets key must be 32 bytes, not 16");
  });
});

describe("loadSecretsKey", () => {
  it("reads KINDGI_SECRETS_KEY as base64, base64url or hex", () => {
    for (const encoded of [key.toString("base64"), key.toString("base64url"), key.toString("hex"), key.toString("hex").toUpperCase()]) {
      expect(loadSecretsKey({ KINDGI_SECRETS_KEY: encoded })).toEqual({ key, generated: false });
    }
  });

  it("refuses a key of the wrong length or encoding without echoing it", () => {
    const short = randomBytes(16).toString("base64");
    expect(() => loadSecretsKey({ KINDGI_SECRETS_KEY: short })).toThrow("KINDGI_SECRETS_KEY must be 32 bytes; it decodes to 16");
    let message = "";
    try {
      loadSecretsKey({ KINDGI_SECRETS_KEY: "not a key!" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe("KINDGI_SECRETS_KEY must be 32 bytes written as 64 hex digits or base64; it is neither");
  });

  it("requires KINDGI_SECRETS_KEY when there is no embedded data folder", () => {
    expect(() => loadSecretsKey({})).toThrow(/^KINDGI_SECRETS_KEY is required with DATABASE_URL/);
  });

  it("generates a key file beside the data folder with mode 0600, then reuses it", () => {
    const dataDir = path.join(tempDir(), "data", "pgdata");
    const first = loadSecretsKey({}, { dataDir });
    const file = path.join(dataDir, "..", "secrets.key");
    expect(first.generated).toBe(true);
    expect(first.key).toHaveLength(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, "utf8").trim(), "base64")).toEqual(first.key);
    expect(loadSecretsKey({}, { dataDir })).toEqual({ key: first.key, generated: false });
  });

  it("prefers KINDGI_SECRETS_KEY over the key file", () => {
    const dataDir = path.join(tempDir(), "pgdata");
    loadSecretsKey({}, { dataDir });
    expect(loadSecretsKey({ KINDGI_SECRETS_KEY: key.toString("hex") }, { dataDir })).toEqual({ key, generated: false });
  });

  it.skipIf(process.platform === "win32")("refuses a key file other users can read", () => {
    const dir = tempDir();
    const file = path.join(dir, "secrets.key");
    writeFileSync(file, key.toString("base64"));
    chmodSync(file, 0o644);
    expect(() => loadSecretsKey({}, { dataDir: path.join(dir, "pgdata") })).toThrow(`${file} is accessible to other users (mode 644); run: chmod 600 ${file}`);
  });
});
