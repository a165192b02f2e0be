import { test } from "vitest";
import { writeFileSync } from "node:fs";
import { invalidManifests } from "../../tests/corpus/invalid-manifests";
import { validateToolManifest } from "./validate-manifest";
test("dump", () => {
  const out = invalidManifests().map((e) => { const r = validateToolManifest(e.manifest); return `${e.name}  [${e.expectPath}]\n` + (r.ok ? "  OK?!" : r.issues.map((i) => `  ${i.path}: ${i.message}`).join("\n")); });
  writeFileSync("/tmp/scratch/dump.txt", out.join("\n"));
});
