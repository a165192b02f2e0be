import { describe, expect, it } from "vitest";
import { safeCallbackUrl } from "@/lib/client/callback-url";

describe("safeCallbackUrl", () => {
  it("keeps a path on this site with its query", () => {
    expect(safeCallbackUrl("/agents/new?x=1")).toBe("/agents/new?x=1");
  });
  it("refuses other sites, protocol-relative and backslash tricks, sign-in itself and non-strings", () => {
    for (const value of ["https://evil.example/", "//evil.example/x", "/\\evil.example", "/sign-in?callbackUrl=/tools", "/api/auth/signout", "tools", 42, undefined]) expect(safeCallbackUrl(value)).toBe("/tools");
  });
});
