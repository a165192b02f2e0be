import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { addLogContext, log, logContext, scrubSecrets, withLogContext } from "@/lib/log";
import { configurationProblems } from "@/lib/configuration";

let lines: string[];

beforeEach(() => {
  lines = [];
  vi.spyOn(process.stdout, "write").mockImplementation(((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stdout.write);
  vi.stubEnv("KINDGI_LOG_FORMAT", "");
  vi.stubEnv("KINDGI_LOG_LEVEL", "");
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

describe("the JSON format", () => {
  it("writes one line per event: level, time (ISO 8601), msg, then the fields", () => {
    log.info("hello", { a: 1, nested: { b: [1, "two"] } });
    log.warn("careful");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.endsWith("\n") && line.indexOf("\n") === line.length - 1).toBe(true);
    const [first, second] = records();
    expect(Object.keys(first)).toEqual(["level", "time", "msg", "a", "nested"]);
    expect(first).toMatchObject({ level: "info", msg: "hello", a: 1, nested: { b: [1, "two"] } });
    expect(first.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(second).toMatchObject({ level: "warn", msg: "careful" });
    // Outside any context no id is written, not even as null.
    expect(second).not.toHaveProperty("requestId");
    expect(second).not.toHaveProperty("tenantId");
    expect(second).not.toHaveProperty("runId");
  });

  it("keeps level, time and msg its own, and writes what JSON cannot hold without failing", () => {
    const circular: Record<string, unknown> = { name: "loop" };
    circular.self = circular;
    log.info("odd values", { level: "fake", msg: "fake", count: 10n, circular, when: new Date(0), fn: () => 1 });
    const [record] = records();
    expect(record).toMatchObject({ level: "info", msg: "odd values", count: "10", circular: { name: "loop", self: "[circular]" }, when: "1970-01-01T00:00:00.000Z" });
    expect(record).not.toHaveProperty("fn");
  });

  it("writes an error as name, message and code, with the stack only at level error", () => {
    const error = Object.assign(new TypeError("boom"), { code: "E_BOOM" });
    log.warn("failed", { err: error });
    log.error("failed", { err: error });
    log.error("failed", { err: "a string thrown" });
    const [warned, errored, thrown] = records();
    expect(warned.err).toEqual({ name: "TypeError", message: "boom", code: "E_BOOM" });
    expect(errored.err).toMatchObject({ name: "TypeError", message: "boom", code: "E_BOOM", stack: expect.stringContaining("TypeError: boom") });
    expect(thrown.err).toBe("a string thrown");
  });

  it("drops events below KINDGI_LOG_LEVEL (default info)", () => {
    log.debug("hidden");
    vi.stubEnv("KINDGI_LOG_LEVEL", "warn");
    log.info("hidden too");
    log.warn("shown");
    vi.stubEnv("KINDGI_LOG_LEVEL", "debug");
    log.debug("shown too");
    expect(records().map((record) => record.msg)).toEqual(["shown", "shown too"]);
  });
});

describe("secrets", () => {
  it("are redacted by field name at any depth", () => {
    log.info("a call", {
      authorization: "Bearer abc",
      apiKey: "k1",
      api_key: "k2",
      key: "k3",
      sessionToken: "t",
      clientSecret: "s",
      password: "p",
      headers: { Cookie: "session=1", "X-Api-Key": "k4", accept: "application/json" },
      list: [{ token: "t2", id: "keep" }],
      inputTokens: 12,
      idempotencyKey: "idem-1",
    });
    const [record] = records();
    expect(record).toMatchObject({
      authorization: "[redacted]",
      apiKey: "[redacted]",
      api_key: "[redacted]",
      key: "[redacted]",
      sessionToken: "[redacted]",
      clientSecret: "[redacted]",
      password: "[redacted]",
      headers: { Cookie: "[redacted]", "X-Api-Key": "[redacted]", accept: "application/json" },
      list: [{ token: "[redacted]", id: "keep" }],
      inputTokens: 12,
      idempotencyKey: "idem-1",
    });
    expect(lines[0]).not.toMatch(/abc|k1|k2|k3|"t"|"s"|"p"|session=1|k4|t2/);
  });

  it("shaped like tokens, keys or URL passwords are scrubbed from messages, values and errors", () => {
    const key = "kgi_AbCdEf0123456789AbCdEf01";
    log.error(`sent Bearer abcdefgh12345678 and ${key}`, { url: "postgresql://kindgi:hunter2pass@db:5432/kindgi", err: new Error(`provider said: Incorrect API key provided: sk-proj-1234567890abcdef`) });
    const line = lines[0];
    expect(line).not.toMatch(/abcdefgh12345678|AbCdEf0123456789|hunter2pass|sk-proj-1234567890abcdef/);
    const [record] = records();
    expect(record.msg).toBe("sent Bearer [redacted] and [redacted]");
    expect(record.url).toBe("postgresql://kindgi:[redacted]@db:5432/kindgi");
    expect(scrubSecrets("needs the operator token as a bearer token")).toBe("needs the operator token as a bearer token");
  });
});

describe("the log context", () => {
  it("adds the request, tenant and run ids to every line under it, across awaits and timers", async () => {
    await withLogContext({ requestId: "req-1" }, async () => {
      log.info("before auth");
      await new Promise((resolve) => setTimeout(resolve, 5));
      addLogContext({ tenantId: "tenant-1" });
      await Promise.resolve();
      log.info("after auth");
      const run = withLogContext({ runId: "run-1" }, async () => {
        await new Promise((resolve) => setImmediate(resolve));
        log.info("in the run");
        addLogContext({ tenantId: "tenant-of-run" });
        log.info("in the run, its tenant");
      });
      log.info("beside the run");
      await run;
      log.info("after the run", { runId: "explicit" });
      expect(logContext()).toEqual({ requestId: "req-1", tenantId: "tenant-1" });
    });
    log.info("outside");
    const got = records().map(({ msg, requestId, tenantId, runId }) => ({ msg, requestId, tenantId, runId }));
    expect(got).toEqual([
      { msg: "before auth", requestId: "req-1", tenantId: undefined, runId: undefined },
      { msg: "after auth", requestId: "req-1", tenantId: "tenant-1", runId: undefined },
      { msg: "beside the run", requestId: "req-1", tenantId: "tenant-1", runId: undefined },
      { msg: "in the run", requestId: "req-1", tenantId: "tenant-1", runId: "run-1" },
      { msg: "in the run, its tenant", requestId: "req-1", tenantId: "tenant-of-run", runId: "run-1" },
      { msg: "after the run", requestId: "req-1", tenantId: "tenant-1", runId: "explicit" },
      { msg: "outside", requestId: undefined, tenantId: undefined, runId: undefined },
    ]);
    // The ids come right after msg.
    expect(Object.keys(records()[3]).slice(0, 6)).toEqual(["level", "time", "msg", "requestId", "tenantId", "runId"]);
  });

  it("is shared by every copy of the module (kept on globalThis)", async () => {
    vi.resetModules();
    const other = await import("@/lib/log");
    expect(other.log).not.toBe(log);
    withLogContext({ requestId: "req-2" }, () => other.log.info("from the other copy"));
    expect(records()[0]).toMatchObject({ msg: "from the other copy", requestId: "req-2" });
  });
});

describe("KINDGI_LOG_FORMAT=pretty", () => {
  it("writes one human line: time, level, message, key=value", () => {
    vi.stubEnv("KINDGI_LOG_FORMAT", "pretty");
    withLogContext({ requestId: "req-3", tenantId: "t-3" }, () => log.warn("slow answer", { ms: 1200, path: "/v1/runs", note: "two words", apiKey: "k" }));
    expect(lines).toHaveLength(1);
    const line = lines[0];
    expect(() => JSON.parse(line)).toThrow();
    expect(line).toMatch(/^\d\d:\d\d:\d\d\.\d{3} WARN  slow answer requestId=req-3 tenantId=t-3 ms=1200 path=\/v1\/runs note="two words" apiKey=\[redacted\]\n$/);
  });

  it("shows an error as name: message, and its stack below at level error", () => {
    vi.stubEnv("KINDGI_LOG_FORMAT", "pretty");
    log.warn("retrying", { err: new RangeError("too far") });
    log.error("failed", { err: new RangeError("too far") });
    expect(lines[0]).toMatch(/ WARN  retrying err="RangeError: too far"\n$/);
    expect(lines[1].split("\n")[0]).toMatch(/ ERROR failed err="RangeError: too far"$/);
    expect(lines[1]).toMatch(/\n {4}RangeError: too far\n {4}\s*at /);
  });
});

describe("the settings", () => {
  it("are checked at start: a format or level the log does not know is a configuration problem", () => {
    expect(configurationProblems({ KINDGI_LOG_FORMAT: "pretty", KINDGI_LOG_LEVEL: "debug" })).toEqual([]);
    expect(configurationProblems({ KINDGI_LOG_FORMAT: "", KINDGI_LOG_LEVEL: "" })).toEqual([]);
    expect(configurationProblems({ KINDGI_LOG_FORMAT: "text", KINDGI_LOG_LEVEL: "warning" })).toEqual([
      expect.stringContaining("KINDGI_LOG_FORMAT must be json"),
      "KINDGI_LOG_LEVEL must be debug, info, warn or error",
    ]);
  });
});
