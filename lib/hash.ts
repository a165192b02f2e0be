import { hash } from "node:crypto";

/**
 * SHA-256 of a text's UTF-8 bytes, in hex: how API keys and wait tokens are stored, how an approval is bound to its
 * arguments and a request body to its idempotency key. One call (`crypto.hash`), no Hash object built per use.
 */
export const sha256Hex = (text: string): string => hash("sha256", text, "hex");
