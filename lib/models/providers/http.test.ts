import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, backoffDelay, redact, retryAfterMs, summarizeBody } from "@/lib/models/providers/http";

describe("backoffDelay", () => {
  it("doubles from the base delay with equal jitter, capped", () => {
    const policy = { ...DEFAULT_RETRY_POLICY };
    expect([1, 2, 3].map((attempt) => backoffDelay(attempt, undefined, policy, () => 0))).toEqual([100, 200, 400]);
    expect([1, 2, 3].map((attempt) => backoffDelay(attempt, undefined, policy, () => 1))).toEqual([200, 400, 800]);
    expect(backoffDelay(10, undefined, policy, () => 1)).toBe(5_000);
  });

  it("honours the server's wait, capped at maxRetryAfterMs", () => {
    expect(backoffDelay(1, 3_000, DEFAULT_RETRY_POLICY)).toBe(3_000);
    expect(backoffDelay(1, 60_000, DEFAULT_RETRY_POLICY)).toBe(10_000);
    expect(backoffDelay(1, 0, DEFAULT_RETRY_POLICY)).toBe(0);
  });
});

describe("retryAfterMs", () => {
  it("reads seconds, an HTTP date and OpenAI's retry-after-ms", () => {
    expect(retryAfterMs(new Headers({ "retry-after": "2" }))).toBe(2_000);
    expect(retryAfterMs(new Headers({ "retry-after": "0.5" }))).toBe(500);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "150", "retry-after": "9" }))).toBe(150);
    const date = retryAfterMs(new Headers({ "retry-after": new Date(Date.now() + 5_000).toUTCString() }));
    expect(date).toBeGreaterThan(3_000);
    expect(date).toBeLessThanOrEqual(5_000);
    expect(retryAfterMs(new Headers({ "retry-after": new Date(Date.now() - 5_000).toUTCString() }))).toBe(0);
  });

  it("ignores absent or unreadable values", () => {
    expect(retryAfterMs(new Headers())).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "-3" }))).toBeUndefined();
  });
});

describe("summarizeBody", () => {
  it("reads OpenAI and Anthropic error shapes", () => {
    expect(summarizeBody('{"error":{"message":"bad","type":"invalid_request_error","code":null}}')).toBe(": invalid_request_error: bad");
    expect(summarizeBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}')).toBe(": overloaded_error: Overloaded");
    expect(summarizeBody('{"message":"plain"}')).toBe(": plain");
  });

  it("falls back to the text, whitespace collapsed and cut short; nothing for a blank body", () => {
    expect(summarizeBody("<html>\n  Bad   Gateway\n</html>")).toBe(": <html> Bad Gateway </html>");
    expect(summarizeBody("x".repeat(400))).toBe(`: ${"x".repeat(300)}…`);
    expect(summarizeBody("  ")).toBe("");
    expect(summarizeBody('{"error":{}}')).toBe(': {"error":{}}');
  });
});

describe("redact", () => {
  it("removes the secret and anything shaped like a provider key", () => {
    expect(redact("key my-secret-key was refused", "my-secret-key")).toBe("key [redacted] was refused");
    expect(redact("Incorrect API key provided: sk-proj-abc***wxyz.", "other")).toBe("Incorrect API key provided: [redacted]");
  });

  it("leaves text alone for a key too short to be a secret", () => {
    expect(redact("exceeded", "x")).toBe("exceeded");
  });
});
