/** JSON text kept exactly as stored (a manifest as registered), spliced into a response unchanged. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON.stringify that writes RawJson values as their stored text. */
export function stringifyResponse(value: unknown): string {
  const raws: string[] = [];
  const text = JSON.stringify(value, (_key, item) => {
    if (item instanceof RawJson) {
      raws.push(item.text);
      return `\u0000raw:${raws.length - 1}`;
    }
    return item;
  });
  if (raws.length === 0) return text;
  return text.replace(/"\\u0000raw:(\d+)"/g, (_match, index: string) => raws[Number(index)]);
}

/** Key order kept, whitespace removed: the form in which request bodies are compared. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value);
}
