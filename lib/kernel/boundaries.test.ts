import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/** The kernel defines its ports; the adapters on the product database live beside the services, never below. */
const KERNEL_DIR = path.join(__dirname);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** Every module specifier a file imports or re-exports (static, type-only and dynamic). */
function specifiers(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|[\s;])(?:import|export)\b[^'"`;]*?\bfrom\s*["']([^"']+)["']/gm)) found.push(match[1]);
  for (const match of text.matchAll(/(?:^|[\s;])import\s*["']([^"']+)["']/gm)) found.push(match[1]);
  for (const match of text.matchAll(/\bimport\s*\(\s*["']([^"']+)["']\s*\)/g)) found.push(match[1]);
  return found;
}

const FORBIDDEN = [/^@\/lib\/services(\/|$)/, /^@\/lib\/db(\/|$)/, /^@\/lib\/api(\/|$)/, /^@\/lib\/generated(\/|$)/, /^next(\/|$)/, /^react(\/|$)/, /(^|\/)\.\.\/(services|db|api|generated)(\/|$)/];

describe("lib/kernel imports", () => {
  it("finds the kernel's modules and reads their imports", () => {
    const files = sourceFiles(KERNEL_DIR);
    expect(files.some((file) => file.endsWith("turn.ts"))).toBe(true);
    expect(specifiers('import type { A } from "@/lib/db";\nimport { b } from "@/lib/services/x";\nconst c = await import("next/server");')).toEqual(["@/lib/db", "@/lib/services/x", "next/server"]);
  });

  it("imports nothing of lib/services, lib/db, lib/api, the generated client, Next or React", () => {
    // This file quotes forbidden specifiers in its own self-check above.
    const offending = sourceFiles(KERNEL_DIR).filter((file) => file !== __filename).flatMap((file) =>
      specifiers(fs.readFileSync(file, "utf8"))
        .filter((specifier) => FORBIDDEN.some((pattern) => pattern.test(specifier)))
        .map((specifier) => `${path.relative(KERNEL_DIR, file)} imports ${specifier}`),
    );
    expect(offending).toEqual([]);
  });
});
