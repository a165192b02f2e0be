/**
 * The seed's rule for `filesystem` handler artifacts: production servers reject them. Two servers started as
 * `npm start` starts one in production (NODE_ENV=production): one as is, which refuses them at `/codeArtifactRef`,
 * one with KINDGI_ALLOW_FILESYSTEM_HANDLERS=1, which accepts them. (The shared test server runs with the test
 * runner's NODE_ENV=test, where they are accepted, as in development.)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, expectError, toolManifest } from "./helpers/api";
import { freshPostgresDatabase, newOperatorToken, startServer, type RunningServer } from "./helpers/server";

const operatorToken = newOperatorToken();
const servers: Array<{ server: RunningServer; database: { url: string; drop: () => Promise<void> } | null }> = [];
let strict: RunningServer;
let allowing: RunningServer;

async function productionServer(extra: Record<string, string>): Promise<RunningServer> {
  const database = process.env.KINDGI_TEST_DATABASE_URL ? await freshPostgresDatabase(process.env.KINDGI_TEST_DATABASE_URL) : null;
  const server = await startServer({ env: { NODE_ENV: "production", DATABASE_URL: database?.url, KINDGI_OPERATOR_TOKEN: operatorToken, KINDGI_ALLOW_FILESYSTEM_HANDLERS: undefined, ...extra } });
  servers.push({ server, database });
  return server;
}

beforeAll(async () => {
  [strict, allowing] = await Promise.all([productionServer({}), productionServer({ KINDGI_ALLOW_FILESYSTEM_HANDLERS: "1" })]);
}, 180_000);

afterAll(async () => {
  for (const { server, database } of servers) {
    await server.stop();
    await database?.drop();
    if (server.dataDir) fs.rmSync(server.dataDir, { recursive: true, force: true });
  }
  fs.rmSync(handlerFolder, { recursive: true, force: true });
});

async function tenantOn(server: RunningServer) {
  const response = await call("POST", "/v1/tenants", { key: operatorToken, body: { name: "handlers" }, baseUrl: server.baseUrl });
  expect(response.status).toBe(201);
  return { key: response.body.apiKey.key as string, projectId: response.body.project.id as string };
}

// A handler file that exists: registration requires one where filesystem handlers are accepted.
const handlerFolder = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-fs-handler-"));
fs.writeFileSync(path.join(handlerFolder, "sign.mjs"), "export default async (input) => ({ signed: true, input });\n");
const filesystem = { kind: "filesystem", modulePath: path.join(handlerFolder, "sign.mjs") };
// By digest: registering a tag would ask the registry (tests/oci-artifacts.integration.test.ts runs one).
const oci = { kind: "oci", imageRef: `registry.example/acme-tools@sha256:${"1".repeat(64)}`, modulePath: "/app/dist/sign.js", artifactVersion: "1.4.0" };

describe("filesystem handlers on a production server", () => {
  it("are refused with validation-failed at /codeArtifactRef; an oci artifact registers", async () => {
    const tenant = await tenantOn(strict);
    const register = (codeArtifactRef: Record<string, unknown>) =>
      call("POST", "/v1/tools", { key: tenant.key, baseUrl: strict.baseUrl, body: { ...toolManifest({ codeArtifactRef, spec: undefined }), projectId: tenant.projectId } });
    const refused = expectError(await register(filesystem), 400, "validation-failed");
    expect(refused.details.issues).toEqual([
      {
        path: "/codeArtifactRef",
        message: 'a "filesystem" handler is the local-development shape and this production server refuses it; use an "oci" artifact (or set KINDGI_ALLOW_FILESYSTEM_HANDLERS=1 on the server)',
      },
    ]);
    // Reported with the manifest's other problems.
    const both = expectError(await register({ kind: "filesystem", modulePath: "sign.js" }), 400, "validation-failed");
    expect(both.details.issues.map((issue: { path: string }) => issue.path)).toEqual(["/codeArtifactRef/modulePath", "/codeArtifactRef"]);
    expect((await register(oci)).status).toBe(201);
  });

  it("are accepted when the server sets KINDGI_ALLOW_FILESYSTEM_HANDLERS=1", async () => {
    const tenant = await tenantOn(allowing);
    const manifest = toolManifest({ codeArtifactRef: filesystem, spec: undefined });
    const created = await call("POST", "/v1/tools", { key: tenant.key, baseUrl: allowing.baseUrl, body: { ...manifest, projectId: tenant.projectId } });
    expect(created.status).toBe(201);
    const read = await call("GET", `/v1/tools/${manifest.id}/versions/1.0.0`, { key: tenant.key, baseUrl: allowing.baseUrl });
    expect(read.body.manifest.codeArtifactRef).toEqual(filesystem);
    // The absolute-path rule holds there too.
    const relative = await call("POST", "/v1/tools", { key: tenant.key, baseUrl: allowing.baseUrl, body: { ...toolManifest({ codeArtifactRef: { kind: "filesystem", modulePath: "./sign.js" }, spec: undefined }), projectId: tenant.projectId } });
    expect(expectError(relative, 400, "validation-failed").details.issues.map((issue: { path: string }) => issue.path)).toEqual(["/codeArtifactRef/modulePath"]);
    // So does the rule that the file exists.
    const missing = await call("POST", "/v1/tools", { key: tenant.key, baseUrl: allowing.baseUrl, body: { ...toolManifest({ codeArtifactRef: { kind: "filesystem", modulePath: path.join(handlerFolder, "missing.mjs") }, spec: undefined }), projectId: tenant.projectId } });
    expect(expectError(missing, 400, "validation-failed").details.issues.map((issue: { path: string }) => issue.path)).toEqual(["/codeArtifactRef/modulePath"]);
  });
});
