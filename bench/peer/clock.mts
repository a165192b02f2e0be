/**
 * What the peer rows of bench/kernel-turns.ts share: the `current-time` tool's work, as our native tool does it
 * (same input, `{timezone}`; the answer's time zone, ISO instant and local time).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

/** The tool's work: the current time in `timezone` (same input schema as our native `current-time`). */
export function currentTime(timezone: string): { timezone: string; iso: string; local: string } {
  let format = formatters.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-CA", { timeZone: timezone, dateStyle: "short", timeStyle: "medium", hourCycle: "h23" });
    formatters.set(timezone, format);
  }
  const now = new Date();
  return { timezone, iso: now.toISOString(), local: format.format(now) };
}

/** The tool's description and its input's, the same in every peer. */
export const CURRENT_TIME_TOOL = { name: "current-time", description: "The current date and time in a time zone.", timezone: "IANA time zone, e.g. UTC or Europe/Paris" } as const;
