import { describe, expect, it } from "vitest";
import { cronInWords, timeZones } from "@/lib/client/cron-words";

describe("cronInWords", () => {
  it("reads five fields and six with seconds first", () => {
    expect(cronInWords("0 9 * * 1-5")).toBe("At 09:00, Monday through Friday");
    expect(cronInWords("*/2 * * * * *")).toBe("Every 2 seconds");
  });

  it("answers null for what it cannot read", () => {
    expect(cronInWords("")).toBeNull();
    expect(cronInWords("every day at nine")).toBeNull();
  });
});

describe("timeZones", () => {
  it("lists UTC first and keeps a zone the list lacks", () => {
    const zones = timeZones("Mars/Olympus");
    expect(zones[0]).toBe("UTC");
    expect(zones).toContain("Mars/Olympus");
    expect(zones).toContain("Europe/Berlin");
  });
});
