import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { sha256Hex } from "@/lib/hash";

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, length: number) => Promise<Buffer>;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
export const API_KEY_PREFIX = "kgi_";

function randomBase62(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = "";
  for (let i = 0; out.length < length && i < bytes.length; i++) if (bytes[i] < 248) out += BASE62[bytes[i] % 62];
  return out.length === length ? out : randomBase62(length);
}

/** A new API key: `kgi_` and 40 base62 characters (238 bits). */
export const generateApiKey = () => API_KEY_PREFIX + randomBase62(40);
/** What is stored of a key (its SHA-256), never the key. */
export const hashApiKey = (key: string) => sha256Hex(key);
export const keyPrefix = (key: string) => key.slice(0, 12);
export const isWellFormedApiKey = (key: string) => /^kgi_[0-9A-Za-z]{20,200}$/.test(key);

export const generatePassword = () => randomBase62(20);

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32);
  return `scrypt$${salt.toString("base64url")}$${hash.toString("base64url")}`;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const [scheme, salt, hash] = (stored ?? "").split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await scrypt(password, Buffer.from(salt, "base64url"), expected.length);
  return timingSafeEqual(actual, expected);
}
