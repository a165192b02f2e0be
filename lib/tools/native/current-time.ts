import type { NativeTool, NativeToolResult } from "./types";
import { invalidArguments } from "./types";

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** The current date and time, in UTC and on the wall clock of an IANA time zone. */
export const currentTime: NativeTool = {
  manifest: {
    id: "current-time",
    version: "1.0.0",
    description:
      "Returns the current date and time: the UTC instant (ISO 8601 and Unix milliseconds) and the wall-clock date, time, weekday and UTC offset in a time zone (IANA name such as Europe/Berlin; UTC when none is given).",
    transport: "native",
    mutating: false,
    effects: [],
    input: {
      type: "object",
      properties: { timezone: { type: "string", minLength: 1, maxLength: 100, description: "IANA time zone, e.g. Europe/Berlin; default UTC" } },
      additionalProperties: false,
    },
    output: {
      type: "object",
      required: ["iso", "unixMs", "timezone", "local", "weekday", "utcOffset"],
      additionalProperties: false,
      properties: {
        iso: { type: "string", description: "The instant in UTC, ISO 8601 with milliseconds." },
        unixMs: { type: "integer", description: "Milliseconds since 1970-01-01T00:00:00Z." },
        timezone: { type: "string", description: "The time zone's canonical IANA name." },
        local: { type: "string", description: "Wall-clock date and time in the zone, YYYY-MM-DDTHH:mm:ss." },
        weekday: { enum: WEEKDAYS, description: "The weekday in the zone." },
        utcOffset: { type: "string", description: "The zone's offset from UTC at that instant, ±HH:MM." },
      },
    },
    metadata: { tags: ["built-in", "time"] },
  },
  invoke: async (input, context) => describeInstant(context.now(), typeof input.timezone === "string" ? input.timezone : "UTC"),
};

/** Formatters by requested zone name (building one costs far more than formatting): the valid zones asked for. */
const formatters = new Map<string, { format: Intl.DateTimeFormat; canonical: string }>();

function formatterFor(timeZone: string): { format: Intl.DateTimeFormat; canonical: string } | null {
  const cached = formatters.get(timeZone);
  if (cached) return cached;
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "long",
    });
  } catch {
    return null;
  }
  // Bounded: zone names are a finite set, but the input is the model's.
  if (formatters.size >= 500) formatters.clear();
  const entry = { format, canonical: format.resolvedOptions().timeZone };
  formatters.set(timeZone, entry);
  return entry;
}

/**
 * `instant` as {@link currentTime} reports it in `timeZone`, or an `invalid-arguments` error naming an unknown zone:
 * the model gets it back as the call's result and can call again with a valid zone (or none, for UTC).
 */
const UTC_WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export function describeInstant(instant: Date, timeZone: string): NativeToolResult {
  const zone = formatterFor(timeZone);
  if (!zone) {
    return invalidArguments(`unknown time zone ${JSON.stringify(timeZone)}: use an IANA name such as "Europe/Berlin", "America/New_York" or "UTC", or omit timezone for UTC`);
  }
  if (zone.canonical === "UTC") {
    const iso = instant.toISOString();
    return { ok: true, output: { iso, unixMs: instant.getTime(), timezone: "UTC", local: iso.slice(0, 19), weekday: UTC_WEEKDAYS[instant.getUTCDay()], utcOffset: "+00:00" } };
  }
  const format = zone.format;
  const parts = Object.fromEntries(format.formatToParts(instant).map((part) => [part.type, part.value]));
  const local = `${parts.year.padStart(4, "0")}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
  // The offset is the wall clock read as if it were UTC, minus the instant (both at whole seconds).
  const offsetMinutes = Math.round((Date.parse(`${local}Z`) - Math.floor(instant.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  const absolute = Math.abs(offsetMinutes);
  const utcOffset = `${sign}${String(Math.floor(absolute / 60)).padStart(2, "0")}:${String(absolute % 60).padStart(2, "0")}`;
  return {
    ok: true,
    output: { iso: instant.toISOString(), unixMs: instant.getTime(), timezone: zone.canonical, local, weekday: parts.weekday, utcOffset },
  };
}
