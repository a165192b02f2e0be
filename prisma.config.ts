import { defineConfig } from "prisma/config";

// The app passes a driver adapter to PrismaClient (lib/db.ts); migrations run through the
// WebAssembly schema engine (lib/db/migrate.ts). Only `prisma generate` reads this file.
export default defineConfig({
  schema: "prisma/schema.prisma",
  migrations: { path: "prisma/migrations" },
});
