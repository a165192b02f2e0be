import { describe, expect, it } from "vitest";
import { describeInstant } from "./current-time";

const instant = new Date("2026-03-29T00:30:15.250Z");

describe("describeInstant", () => {
  it("reports the ISO instant, Unix ms, wall clock, weekday and offset in UTC", () => {
    expect(describeInstant(instant, "UTC")).toEqual({
      ok: true,
      output: { iso: "2026-03-29T00:30:15.250Z", unixMs: instant.getTime(), timezone: "UTC", local: "2026-03-29T00:30:15", weekday: "Sunday", utcOffset: "+00:00" },
    });
  });

  it("reads the wall clock of the zone at that instant, across a daylight-saving change", () => {
    // Europe/Berlin switches to summer time at 01:00 UTC on 2026-03-29.
    expect(describeInstant(instant, "Europe/Berlin")).toMatchObject({ ok: true, output: { local: "2026-03-29T01:30:15", utcOffset: "+01:00", timezone: "Europe/Berlin", weekday: "Sunday" } });
    expect(describeInstant(new Date("2026-03-29T01:30:00Z"), "Europe/Berlin")).toMatchObject({ ok: true, output: { local: "2026-03-29T03:30:00", utcOffset: "+02:00" } });
  });

  it("crosses the date line and handles half-hour and negative offsets", () => {
    expect(describeInstant(instant, "America/Los_Angeles")).toMatchObject({ ok: true, output: { local: "2026-03-28T17:30:15", weekday: "Saturday", utcOffset: "-07:00" } });
    expect(describeInstant(instant, "Asia/Kolkata")).toMatchObject({ ok: true, output: { local: "2026-03-29T06:00:15", utcOffset: "+05:30" } });
    expect(describeInstant(instant, "Pacific/Kiritimati")).toMatchObject({ ok: true, output: { local: "2026-03-29T14:30:15", utcOffset: "+14:00" } });
  });

  it("writes midnight as 00, not 24", () => {
    expect(describeInstant(new Date("2026-01-01T00:00:00Z"), "UTC")).toMatchObject({ output: { local: "2026-01-01T00:00:00", weekday: "Thursday" } });
  });

  it("answers the canonical name of a zone given in another case", () => {
    expect(describeInstant(instant, "europe/berlin")).toMatchObject({ ok: true, output: { timezone: "Europe/Berlin" } });
  });

  it("is an invalid-arguments error the model can correct, naming the zone, for an unknown time zone", () => {
    for (const zone of ["Mars/Olympus_Mons", "", "Europe/Berlin; DROP TABLE", "+25:00"]) {
      const result = describeInstant(instant, zone);
      expect(result).toEqual({ ok: false, error: { kind: "invalid-arguments", message: expect.stringContaining(`unknown time zone ${JSON.stringify(zone)}`) } });
    }
  });
});
