import { describe, expect, it } from "vitest";
import { dropDatabase } from "@/lib/db/drop-database.mjs";

/** A client whose queries fail with the given errors, in order, then succeed; it records every statement. */
function client(failures: unknown[]) {
  const statements: string[] = [];
  return {
    statements,
    async query(sql: string) {
      statements.push(sql);
      const failure = failures.shift();
      if (failure) throw failure;
      return { rows: [] };
    },
  };
}

const autovacuumInTheWay = Object.assign(new Error("must be a member of the role whose process is being terminated or member of pg_signal_backend"), { code: "42501" });

describe("dropDatabase", () => {
  it("drops with FORCE, quoting the name", async () => {
    const admin = client([]);
    await dropDatabase(admin, 'kindgi_test_"1');
    expect(admin.statements).toEqual(['DROP DATABASE IF EXISTS "kindgi_test_""1" WITH (FORCE)']);
  });

  it("tries again while a session it may not end (an autovacuum worker) is in the database", async () => {
    const admin = client([autovacuumInTheWay, autovacuumInTheWay]);
    await dropDatabase(admin, "kindgi_test_2", { delayMs: 1 });
    expect(admin.statements).toHaveLength(3);
  });

  it("gives up after its attempts with PostgreSQL's error", async () => {
    const admin = client([autovacuumInTheWay, autovacuumInTheWay, autovacuumInTheWay]);
    await expect(dropDatabase(admin, "kindgi_test_3", { attempts: 2, delayMs: 1 })).rejects.toBe(autovacuumInTheWay);
    expect(admin.statements).toHaveLength(2);
  });

  it("does not retry any other error", async () => {
    const other = Object.assign(new Error("database is being accessed by other users"), { code: "55006" });
    const admin = client([other]);
    await expect(dropDatabase(admin, "kindgi_test_4", { delayMs: 1 })).rejects.toBe(other);
    expect(admin.statements).toHaveLength(1);
  });
});
