/**
 * Encryption of stored secrets: AES-256-GCM envelopes under one key from the environment.
 *
 * An envelope is `"v1:" + base64url(iv ‖ tag ‖ ciphertext)` with a fresh 12-byte IV per encryption. The additional
 * authenticated data binds a ciphertext to its row ({@link secretAad}: tenant, secret name, version), so a ciphertext
 * copied into another row does not decrypt. No message here ever contains a plaintext or a key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const VERSION_PREFIX = "v1:";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_VARIABLE = "KINDGI_SECRETS_KEY";

/** The secrets key and whether it was generated just now (the caller warns once to back it up). */
export type SecretsKey = { key: Buffer; generated: boolean };

/** The additional authenticated data that binds a secret's ciphertext to its tenant, name and version. */
export function secretAad(binding: { tenantId: string; name: string; version: number }): string {
  return JSON.stringify(["kindgi-secret", binding.tenantId, binding.name, binding.version]);
}

/** Encrypts `plaintext` under `key` (32 bytes) bound to `aad`; returns a `v1:` envelope. */
export function encryptSecret(plaintext: string, key: Buffer, aad: string): string {
  assertKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return VERSION_PREFIX + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString("base64url");
}

/**
 * Decrypts an envelope from {@link encryptSecret}. Throws when it is malformed, or when the key, the aad or the
 * ciphertext differ from the ones it was made with.
 */
export function decryptSecret(envelope: string, key: Buffer, aad: string): string {
  assertKey(key);
  if (!envelope.startsWith(VERSION_PREFIX)) throw new Error("secret envelope is malformed: it does not start with v1:");
  const raw = Buffer.from(envelope.slice(VERSION_PREFIX.length), "base64url");
  if (raw.length < IV_BYTES + TAG_BYTES) throw new Error("secret envelope is malformed: it is too short");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString("utf8");
  } catch {
    throw new Error("secret could not be decrypted: the key is wrong, or the ciphertext was altered or belongs to another secret");
  }
}

/**
 * The secrets key: `KINDGI_SECRETS_KEY` (32 bytes as 64 hex digits or base64) when set. Otherwise, in embedded mode
 * (`dataDir` given), the key in `<dataDir>/../secrets.key`, created with mode 0600 on first start (`generated: true`).
 * Without either it throws: a PostgreSQL deployment (DATABASE_URL) must provide the key, since replicas share it.
 */
export function loadSecretsKey(env: Record<string, string | undefined> = process.env, options: { dataDir?: string } = {}): SecretsKey {
  const configured = env[KEY_VARIABLE];
  if (configured !== undefined && configured.trim() !== "") return { key: parseKey(configured, KEY_VARIABLE), generated: false };
  if (!options.dataDir) {
    throw new Error(`${KEY_VARIABLE} is required with DATABASE_URL: set it to 32 random bytes in base64 (openssl rand -base64 32)`);
  }
  return readOrCreateKeyFile(path.resolve(options.dataDir, "..", "secrets.key"));
}

/** A 32-byte key kept in `file` (mode 0600), created on first use; also used for the console's session key. */
export function readOrCreateKeyFile(file: string): SecretsKey {
  const key = randomBytes(KEY_BYTES);
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    writeFileSync(file, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
    return { key, generated: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  assertPrivate(file);
  return { key: parseKey(readFileSync(file, "utf8"), file), generated: false };
}

/** Refuses a key file that other users can read (as ssh does), except where POSIX modes do not apply. */
function assertPrivate(file: string): void {
  const mode = statSync(file).mode & 0o777;
  if (process.platform !== "win32" && (mode & 0o077) !== 0) {
    throw new Error(`${file} is accessible to other users (mode ${mode.toString(8)}); run: chmod 600 ${file}`);
  }
}

/** 32 bytes from 64 hex digits or from base64 (standard or URL-safe); `source` names where the text came from. */
function parseKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(trimmed)
    ? Buffer.from(trimmed, "hex")
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)
      ? Buffer.from(trimmed, "base64")
      : undefined;
  if (!key) throw new Error(`${source} must be 32 bytes written as 64 hex digits or base64; it is neither`);
  if (key.length !== KEY_BYTES) throw new Error(`${source} must be ${KEY_BYTES} bytes; it decodes to ${key.length}`);
  return key;
}

function assertKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new Error(`the secrets key must be ${KEY_BYTES} bytes, not ${key.length}`);
}
