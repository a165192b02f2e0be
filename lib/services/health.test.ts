import { describe, expect, it } from "vitest";
import { checkReadiness, type ReadinessProbe } from "@/lib/services/health";
import { metricsAccess } from "@/lib/services/metrics";

const probe = (overrides: Partial<ReadinessProbe> = {}): ReadinessProbe => ({
  ping: async () => {},
  appliedMigrations: async () => ["20260101000000_init", "20260201000000_more"],
  knownMigrations: () => ["20260101000000_init", "20260201000000_more"],
  busListening: () => true,
  ...overrides,
});

describe("checkReadiness", () => {
  it("is ready when the database answers, every known migration is applied and the bus listens", async () => {
    expect(await checkReadiness(probe())).toEqual({ status: "ready", checks: { database: { ok: true }, migrations: { ok: true }, eventBus: { ok: true } } });
  });

  it("is not ready when the event bus does not listen", async () => {
    const readiness = await checkReadiness(probe({ busListening: () => false }));
    expect(readiness.status).toBe("not-ready");
    expect(readiness.checks.eventBus).toEqual({ ok: false, detail: expect.stringContaining("listening connection") });
    expect(readiness.checks.database.ok).toBe(true);
  });

  it("names the migrations the database lacks", async () => {
    const readiness = await checkReadiness(probe({ appliedMigrations: async () => ["20260101000000_init"] }));
    expect(readiness.status).toBe("not-ready");
    expect(readiness.checks.migrations).toEqual({ ok: false, detail: "not applied: 20260201000000_more" });
  });

  it("is not ready when the database fails or does not answer in time, and does not check migrations then", async () => {
    const failing = await checkReadiness(probe({ ping: async () => Promise.reject(new Error("connection refused")) }));
    expect(failing.status).toBe("not-ready");
    expect(failing.checks.database).toEqual({ ok: false, detail: "connection refused" });
    expect(failing.checks.migrations.ok).toBe(false);
    const started = Date.now();
    const hanging = await checkReadiness(probe({ ping: () => new Promise(() => {}) }));
    expect(hanging.checks.database).toEqual({ ok: false, detail: expect.stringContaining("did not answer within") });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

describe("metricsAccess", () => {
  it("is off without a token, and compares the bearer token", () => {
    expect(metricsAccess("Bearer x", undefined)).toBe("off");
    expect(metricsAccess("Bearer x", "")).toBe("off");
    expect(metricsAccess(null, "secret")).toBe("denied");
    expect(metricsAccess("Bearer secreT", "secret")).toBe("denied");
    expect(metricsAccess("Bearer secret-longer", "secret")).toBe("denied");
    expect(metricsAccess("Basic secret", "secret")).toBe("denied");
    expect(metricsAccess("Bearer secret", "secret")).toBe("ok");
  });
});
