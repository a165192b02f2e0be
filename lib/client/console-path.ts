/**
 * Set by the HTTP front (scripts/http-edge.mjs) on page requests: the path and query asked for, so the console layout can
 * send a person back to it after sign-in. Without the front (`next dev`) it is absent and the layouts fall back to a
 * section's home page.
 */
export const CONSOLE_PATH_HEADER = "x-kindgi-console-path";
