import { describe, expect, it } from "vitest";
import { approvalInWords, effectInWords, limitsInWords, networkInWords, transportInWords } from "@/components/catalog/behaviour";

describe("a tool's behaviour in words", () => {
  it("says the approval a call meets", () => {
    expect(approvalInWords({ mutating: false })).toEqual(["passes"]);
    expect(approvalInWords({ mutating: true })).toEqual(["asks on first use"]);
    expect(approvalInWords({})).toEqual(["asks on first use"]);
    expect(approvalInWords({ needsApprovalWhenUnattended: true })).toEqual(["asks on first use", "asks on every unattended call"]);
    expect(approvalInWords({ mutating: false, needsApprovalWhenUnattended: true })).toEqual(["passes when attended", "asks on every unattended call"]);
  });

  it("says the network policy, limits, transport and effects in one line each", () => {
    expect(networkInWords({ kind: "allowlist", hosts: ["api.example.com"] })).toBe("may reach api.example.com only");
    expect(networkInWords({ kind: "none" })).toBe("no network");
    expect(networkInWords(undefined)).toMatch(/public addresses/);
    expect(limitsInWords({ memMB: 256, cpuMs: 2000 })).toBe("256 MB · 2 s CPU");
    expect(limitsInWords({ memMB: 64, cpuMs: 250 })).toBe("64 MB · 250 ms CPU");
    expect(transportInWords({ transport: "auto", spec: { kind: "http" } })).toBe("http");
    expect(transportInWords({ transport: "mcp" })).toBe("mcp");
    expect(transportInWords({ transport: "native" })).toBe("native");
    expect(transportInWords({ transport: "auto" })).toBe("handler");
    expect(effectInWords({ kind: "writes", resource: "memory:facts" })).toBe("writes memory:facts");
  });
});
