import { afterAll, describe, expect, it } from "vitest";
import { PrismaClient } from "@/lib/generated/prisma/client";
import { pgliteRawQuery } from "@/lib/db";
import { PGliteThread, prismaAdapter } from "@/lib/db/pglite-thread";

const pglite = new PGliteThread();
const prisma = new PrismaClient({ adapter: prismaAdapter(pglite) });
afterAll(async () => {
  await prisma.$disconnect();
  await pglite.close();
});

// A statement the raw path prepares (its text starts with the kernel's marker).
const SQL = `/* kindgi:test */ SELECT '2026-03-29 00:30:15.25'::timestamp(3) AS t, now() AS tz, ARRAY['a', 'b']::text[] AS a, '{"x": [1, 2]}'::jsonb AS j, $1::int AS n, $2::text AS s, $3::boolean AS b, $4::float8 AS f`;

describe("pgliteRawQuery (the kernel's prepared statements on PGlite)", () => {
  it("answers the rows Prisma's raw query answers, on the first call and once prepared", async () => {
    const raw = pgliteRawQuery(pglite);
    const params = [7, "word", true, 0.25];
    const [viaPrisma] = await prisma.$queryRawUnsafe<Record<string, unknown>[]>(SQL, ...params);
    for (let i = 0; i < 2; i++) {
      const [row] = await raw<Record<string, unknown>>(SQL, params);
      expect((row.t as Date).toISOString()).toBe("2026-03-29T00:30:15.250Z");
      expect(row.tz).toBeInstanceOf(Date);
      expect({ ...row, tz: null }).toEqual({ ...viaPrisma, tz: null });
    }
  });

  it("waits for another caller's open transaction instead of running inside it", async () => {
    const raw = pgliteRawQuery(pglite);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const open = new Promise<void>((resolve) => (entered = resolve));
    const transaction = prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe("CREATE TEMP TABLE held (n int)");
      entered();
      await held;
    });
    await open;
    let answered = false;
    const query = raw<{ inside: boolean }>(`/* kindgi:test-tx */ SELECT to_regclass('pg_temp.held') IS NOT NULL AND txid_current_if_assigned() IS NOT NULL AS inside`, []).then((rows) => {
      answered = true;
      return rows;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    release();
    await transaction;
    const [row] = await query;
    expect(row.inside).toBe(false);
  });
});
