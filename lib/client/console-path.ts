/** Set by proxy.ts on page requests: the path and query asked for, so the console layout can send a person back to it after sign-in. */
export const CONSOLE_PATH_HEADER = "x-kindgi-console-path";
