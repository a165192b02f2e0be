const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for a UUID in any case (the database stores them lower-case). */
export const isUuid = (value: string) => UUID.test(value);

/**
 * The grammar of a catalog id (a tool, agent or guardrail id): 1 to 200 characters, none of them a control character
 * (U+0000–U+001F). It is the grammar the `{toolId}`, `{agentId}` and `{guardrailId}` path parameters accept, so every
 * id that registers can be read back through its path.
 */
export const CATALOG_ID_MAX_LENGTH = 200;
/** No control characters (U+0000–U+001F). */
export const CATALOG_ID_PATTERN = "^[^\\u0000-\\u001f]*$";
/** The JSON Schema of a catalog id, shared by the registration schemas and the path parameters. */
export const catalogIdSchema = { type: "string", minLength: 1, maxLength: CATALOG_ID_MAX_LENGTH, pattern: CATALOG_ID_PATTERN } as const;
/** The message of an id that breaks {@link CATALOG_ID_PATTERN}. */
export const CATALOG_ID_PATTERN_MESSAGE = "must not contain control characters (U+0000–U+001F)";

const CATALOG_ID = new RegExp(CATALOG_ID_PATTERN);

/** True for a string that follows the catalog id grammar; its length is counted in code points, as JSON Schema's `maxLength` counts. */
export const isCatalogId = (value: string) => value.length >= 1 && [...value].length <= CATALOG_ID_MAX_LENGTH && CATALOG_ID.test(value);
