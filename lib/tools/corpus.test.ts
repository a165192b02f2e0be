import { describe, expect, test } from "vitest";
import { invalidManifests, validManifests } from "../../tests/corpus/invalid-manifests";
import { validateToolManifest } from "./validate-manifest";

const invalid = invalidManifests();
const valid = validManifests();

describe("manifest corpus", () => {
  test("has at least 250 distinct invalid and 15 valid manifests", () => {
    expect(invalid.length).toBeGreaterThanOrEqual(250);
    expect(valid.length).toBeGreaterThanOrEqual(15);
    expect(new Set(invalid.map((entry) => entry.name)).size).toBe(invalid.length);
    expect(new Set(invalid.map((entry) => JSON.stringify(entry.manifest))).size).toBe(invalid.length);
    expect(new Set(valid.map((entry) => entry.name)).size).toBe(valid.length);
  });

  test.each(invalid.map((entry) => [entry.name, entry] as const))("rejects: %s", (_name, { manifest, expectPath }) => {
    const result = validateToolManifest(manifest);
    expect(result.ok).toBe(false);
    const paths = result.ok ? [] : result.issues.map((issue) => issue.path);
    expect(paths.some((path) => path === expectPath || path.startsWith(`${expectPath}/`)), JSON.stringify(result)).toBe(true);
  });

  test.each(valid.map((entry) => [entry.name, entry] as const))("accepts: %s", (_name, { manifest }) => {
    expect(validateToolManifest(manifest)).toEqual({ ok: true, manifest });
  });
});
