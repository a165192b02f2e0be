/** The limits on what a /v1 request may carry, checked at the edge before any other code reads it. */

/** The largest request body, in bytes (next.config.js lets Next.js buffer twice as much, so a larger body is seen as larger). */
export const MAX_BODY_BYTES = 1024 * 1024;
/** How deeply a request body may nest arrays and objects; the JSON Schemas inside manifests stay far below it. */
export const MAX_BODY_DEPTH = 64;
/** The longest path parameter (ids, versions, names), in characters. */
export const MAX_PARAM_LENGTH = 256;
/** The longest query value (search text, cursors), in characters. */
export const MAX_QUERY_LENGTH = 1024;
