import { AppError } from "@/lib/errors";

/** A page of a list: the shape every list route returns. */
export type Page<T> = { data: T[]; hasMore: boolean; nextCursor?: string };

/** Opaque cursor: the sort key of the last item, base64url JSON. */
export function encodeCursor(key: unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString("base64url");
}

export function decodeCursor(cursor: string | undefined): unknown[] | undefined {
  if (cursor === undefined) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(key) && key.length > 0) return key;
  } catch {
    // reported below
  }
  throw new AppError("bad-input", "cursor is not one this API returned", { issues: [{ path: "/cursor", message: "malformed cursor" }] });
}

/** Builds the page from rows fetched with `take: limit + 1`. */
export function toPage<Row, Item>(rows: Row[], limit: number, cursorKey: (row: Row) => unknown[], toItem: (row: Row) => Item): Page<Item> {
  const hasMore = rows.length > limit;
  const shown = hasMore ? rows.slice(0, limit) : rows;
  const page: Page<Item> = { data: shown.map(toItem), hasMore };
  if (hasMore) page.nextCursor = encodeCursor(cursorKey(shown[shown.length - 1]));
  return page;
}
