/**
 * A clone of the repository is self-contained: no code, test, script or benchmark reads a file outside it
 * (conformance data the tests need is copied into tests/fixtures/).
 */
import fs from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";

const root = path.resolve(import.meta.dirname, "..");
const FOLDERS = ["app", "bench", "lib", "scripts", "tests", "prisma"];
const SKIP = new Set(["node_modules", "generated", ".next"]);
/** A relative path that climbs out of the repository to a folder beside it (the shared specs or seeds). */
const OUTSIDE = /(?:\.\.\/){1,}(?:shared|seeds|reference)\//;

function* sourceFiles(folder: string): Generator<string> {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(full);
    else if (/\.(ts|tsx|mts|mjs|js|json)$/.test(entry.name)) yield full;
  }
}

test("no source file reads a folder beside the repository", () => {
  const offenders: string[] = [];
  for (const folder of FOLDERS) {
    if (!fs.existsSync(path.join(root, folder))) continue;
    for (const file of sourceFiles(path.join(root, folder))) if (OUTSIDE.test(fs.readFileSync(file, "utf8"))) offenders.push(path.relative(root, file));
  }
  expect(offenders).toEqual([]);
});

test("the conformance fixtures the tests read are in the repository", () => {
  for (const file of ["tests/fixtures/specs/tool.schema.json", "tests/fixtures/specs/agent.schema.json", "tests/fixtures/seeds/003_8b0ba644dbd077e8.txt", "tests/fixtures/README.md"])
    expect(fs.existsSync(path.join(root, file)), file).toBe(true);
});
