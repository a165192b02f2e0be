/** Where RawJson values met by the JSON.stringify in progress put their text (stringify is synchronous). */
let collecting: string[] | null = null;

/**
 * JSON text kept exactly as stored (a manifest as registered) or as first serialized (a cached page), spliced into a
 * response unchanged. `T` is what the text holds.
 */
export class RawJson<T = unknown> {
  /** Marks what the text holds; never set. */
  declare readonly holds?: T;
  constructor(readonly text: string) {}

  /** Within {@link stringifyResponse}: a placeholder for the stored text; elsewhere the parsed value. */
  toJSON(): unknown {
    if (!collecting) return JSON.parse(this.text);
    collecting.push(this.text);
    return `\u0000raw:${collecting.length - 1}`;
  }
}

/**
 * JSON.stringify that writes RawJson values as their stored text. A body without one costs a plain JSON.stringify
 * (no replacer is called per value).
 */
export function stringifyResponse(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  const outer = collecting;
  const raws: string[] = [];
  collecting = raws;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    collecting = outer;
  }
  if (raws.length === 0) return text;
  return text.replace(/"\\u0000raw:(\d+)"/g, (_match, index: string) => raws[Number(index)]);
}

/**
 * JSON with object keys sorted at every level (arrays keep their order; an undefined member is left out, one in an
 * array written as null): the same value gives the same text whatever order its keys came in. What an approval's
 * arguments and a discovered MCP tool's manifest are hashed on.
 */
export function sortedKeysJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map((item) => sortedKeysJson(item === undefined ? null : item)).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${sortedKeysJson(item)}`).join(",")}}`;
}

/** Key order kept, whitespace removed: the form in which request bodies are compared. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value);
}
