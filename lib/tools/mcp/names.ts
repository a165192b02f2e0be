/**
 * Tool ids as MCP tool names. A tool id is 1 to 200 characters without control characters; an MCP tool name
 * (2025-11-25) is 1 to 128 of A-Z a-z 0-9 _ - . — an id that is already a valid name is its own name (every
 * `<pack>.<tool>` id of `[a-z0-9._-]`); any other is escaped percent-style with `_` as the escape: each UTF-8 byte
 * other than A-Z a-z 0-9 - . (the `_` included) becomes `_` and two upper-case hex digits. Decoding a name tries
 * the name itself first, then its unescaped form.
 */
const VALID_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const KEPT = /[A-Za-z0-9.-]/;

/** The name a tool is listed under, or null when even its escaped form is longer than a name may be. */
export function toolNameFor(toolId: string): string | null {
  if (VALID_NAME.test(toolId)) return toolId;
  let name = "";
  for (const byte of Buffer.from(toolId, "utf8")) {
    const char = String.fromCharCode(byte);
    name += byte < 0x80 && KEPT.test(char) ? char : `_${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return name.length <= 128 ? name : null;
}

/** The tool ids a called name may stand for, the literal one first. */
export function toolIdsFor(name: string): string[] {
  const candidates = [name];
  if (/_[0-9A-F]{2}/.test(name) && /^(?:[A-Za-z0-9.-]|_[0-9A-F]{2})+$/.test(name)) {
    const bytes = name.match(/_[0-9A-F]{2}|[^_]/g)!.map((part) => (part.length === 3 ? parseInt(part.slice(1), 16) : part.charCodeAt(0)));
    const decoded = new TextDecoder("utf-8", { fatal: false }).decode(Uint8Array.from(bytes));
    if (decoded !== name && toolNameFor(decoded) === name) candidates.push(decoded);
  }
  return candidates;
}
