import { describe, expect, it } from "vitest";
import { sessionTokenFromCookieHeader } from "@/lib/services/authenticate";

describe("sessionTokenFromCookieHeader", () => {
  it("finds the session cookie among others", () => {
    expect(sessionTokenFromCookieHeader("a=1; next-auth.session-token=abc.def; b=2")).toBe("abc.def");
  });
  it("prefers the https cookie name and joins chunked cookies in order", () => {
    expect(sessionTokenFromCookieHeader("next-auth.session-token=plain; __Secure-next-auth.session-token=secure")).toBe("secure");
    expect(sessionTokenFromCookieHeader("next-auth.session-token.1=BBB; next-auth.session-token.0=AAA")).toBe("AAABBB");
  });
  it("is null without a session cookie", () => {
    expect(sessionTokenFromCookieHeader(null)).toBeNull();
    expect(sessionTokenFromCookieHeader("next-auth.csrf-token=x; other=y")).toBeNull();
  });
});
