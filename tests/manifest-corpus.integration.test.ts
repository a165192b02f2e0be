import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { call, newTenant } from "./helpers/api";
import { invalidManifests, validManifests } from "./corpus/invalid-manifests";

/** Runs at most `width` promises at once. */
async function inBatches<T, R>(items: T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let i = 0; i < items.length; i += width) results.push(...(await Promise.all(items.slice(i, i + width).map(work))));
  return results;
}

describe("POST /v1/tools with the manifest corpus", () => {
  it("answers 400 with an issue at the expected JSON pointer for every invalid manifest", async () => {
    const tenant = await newTenant();
    const corpus = invalidManifests();
    expect(corpus.length).toBeGreaterThanOrEqual(200);
    const problems: string[] = [];
    await inBatches(corpus, 8, async (entry) => {
      const body = typeof entry.manifest === "object" && entry.manifest !== null && !Array.isArray(entry.manifest) ? { ...entry.manifest, projectId: tenant.projectId } : entry.manifest;
      const response = await call("POST", "/v1/tools", { key: tenant.key, body });
      const issues: Array<{ path: string; message: string }> = response.body?.error?.details?.issues ?? [];
      if (response.status !== 400) problems.push(`${entry.name}: status ${response.status}`);
      else if (!["validation-failed", "unknown-field", "bad-input"].includes(response.body.error.code)) problems.push(`${entry.name}: code ${response.body.error.code}`);
      else if (!issues.some((issue) => issue.path === entry.expectPath || issue.path.startsWith(`${entry.expectPath}/`)))
        problems.push(`${entry.name}: no issue at ${entry.expectPath} (got ${issues.map((i) => i.path).join(", ")})`);
      else if (issues.some((issue) => !issue.message)) problems.push(`${entry.name}: an issue without a message`);
    });
    expect(problems).toEqual([]);
    // Nothing of it was stored.
    expect((await call("GET", "/v1/tools", { key: tenant.key })).body.data.filter((tool: { builtIn: boolean }) => !tool.builtIn)).toEqual([]);
  }, 300_000);

  it("registers every valid manifest", async () => {
    const tenant = await newTenant();
    const corpus = validManifests();
    // A filesystem handler's modulePath must exist on the server (which runs on this machine).
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-corpus-handler-"));
    const handlerFile = path.join(folder, "handler.mjs");
    fs.writeFileSync(handlerFile, "export default async (input) => input;\n");
    const onThisServer = (manifest: Record<string, any>) =>
      manifest.codeArtifactRef?.kind === "filesystem" ? { ...manifest, codeArtifactRef: { ...manifest.codeArtifactRef, modulePath: handlerFile } } : manifest;
    const statuses = await inBatches(corpus.map((entry, index) => ({ ...entry, index })), 4, async (entry) => {
      // Several corpus entries share an id; each is registered as a tool of its own here.
      const manifest = onThisServer({ ...(entry.manifest as { id: string }), id: `${(entry.manifest as { id: string }).id}.n${entry.index}` });
      const response = await call("POST", "/v1/tools", { key: tenant.key, body: { ...manifest, projectId: tenant.projectId } });
      return `${entry.name}: ${response.status}${response.status === 201 ? "" : " " + response.text.slice(0, 300)}`;
    });
    fs.rmSync(folder, { recursive: true, force: true });
    expect(statuses).toEqual(corpus.map((entry) => `${entry.name}: 201`));
  }, 120_000);
});
