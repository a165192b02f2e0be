/**
 * A cron pattern in words, with `cronstrue` (the widely used, dependency-free describer; pinned in package.json).
 * Its reading of 6 fields (seconds first) matches croner's, which the API validates with; a pattern cronstrue cannot
 * read answers null and the API's verdict (400 at `/cron`) is what counts.
 */
import { toString } from "cronstrue";

export function cronInWords(cron: string): string | null {
  const pattern = cron.trim();
  if (!pattern) return null;
  try {
    return toString(pattern, { throwExceptionOnParseError: true, use24HourTimeFormat: true, verbose: false });
  } catch {
    return null;
  }
}

/** The IANA zones this browser knows, UTC first; `current` is kept when the list lacks it. */
export function timeZones(current?: string): string[] {
  const supported = (Intl as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
  const zones = ["UTC", ...supported.filter((zone) => zone !== "UTC")];
  if (current && !zones.includes(current)) zones.splice(1, 0, current);
  return zones;
}

export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}
