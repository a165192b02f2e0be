/**
 * Two replicas on one PostgreSQL database, started at the same moment on an empty database (one pair for the whole
 * file): both come up and the first tenant is created once.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, kindgi } from "./helpers/api";
import { startReplicas, type Replicas } from "./helpers/replicas";

describe.skipIf(kindgi().backend !== "postgresql")("two replicas on one PostgreSQL database", () => {
  let replicas: Replicas;
  beforeAll(async () => {
    replicas = await startReplicas();
  }, 180_000);
  afterAll(async () => {
    await replicas?.stop();
  });

  it("both come up on an empty database started at the same moment, and the first tenant is created once", async () => {
    const outputs = [replicas.a.output(), replicas.b.output()];
    expect(outputs.filter((output) => output.includes("created the first tenant"))).toHaveLength(1);
    for (const output of outputs) expect(output).not.toContain("exists already");
    const client = new pg.Client({ connectionString: replicas.databaseUrl });
    await client.connect();
    try {
      expect((await client.query(`SELECT count(*)::int AS n FROM "Tenant"`)).rows[0].n).toBe(1);
      expect((await client.query(`SELECT count(*)::int AS n FROM "User" WHERE email = $1`, [replicas.adminEmail])).rows[0].n).toBe(1);
    } finally {
      await client.end();
    }
    for (const server of [replicas.a, replicas.b]) {
      const whoami = await call("GET", "/v1/identity/whoami", { key: replicas.bootstrapKey, baseUrl: server.baseUrl });
      expect(whoami.status, whoami.text).toBe(200);
    }
  });
});
