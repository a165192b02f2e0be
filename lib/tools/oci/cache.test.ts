import { randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyToLayout, pushBundle, pushLayers, startRegistry, tamperBlob, tarArchive, tarEntry, type TestRegistry } from "@/tests/helpers/registry";
import { ensureArtifact, resolveModulePath, type ArtifactCacheOptions } from "./cache";
import { resolveImageRef } from "./client";
import { ArtifactError, type ArtifactErrorCode } from "./errors";

const HANDLER = "export default async function handler(input) { return { echoed: input }; }\n";

let registry: TestRegistry;
let scratch: string;
let caches = 0;

beforeAll(async () => {
  registry = await startRegistry({ auth: "token" });
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), "kindgi-oci-test-"));
});

afterAll(async () => {
  await registry?.close();
  if (scratch) await fs.rm(scratch, { recursive: true, force: true });
});

/** Options with a fresh cache directory and the registry's credentials. */
function options(overrides: Partial<ArtifactCacheOptions> = {}): ArtifactCacheOptions {
  return {
    cacheDir: path.join(scratch, `cache-${++caches}`),
    allowPrivate: true,
    credentials: async () => ({ username: registry.username, password: registry.password }),
    ...overrides,
  };
}

async function artifactError(promise: Promise<unknown>, code: ArtifactErrorCode): Promise<ArtifactError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ArtifactError);
  expect((error as ArtifactError).code, (error as Error).message).toBe(code);
  return error as ArtifactError;
}

async function modes(root: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (directory: string) => {
    found.push(`${path.relative(root, directory) || "."} ${((await fs.stat(directory)).mode & 0o777).toString(8)}`);
    for (const entry of await fs.readdir(directory, { withFileTypes: true })) {
      const entryPath = path.join(directory, entry.name);
      if (entry.isDirectory()) await walk(entryPath);
      else found.push(`${path.relative(root, entryPath)} ${((await fs.lstat(entryPath)).mode & 0o777).toString(8)}`);
    }
  };
  await walk(root);
  return found.sort();
}

describe("handler bundles from a registry with token authentication", () => {
  it("resolves a tag, unpacks the bundle read-only and finds the handler; a second call needs no network", async () => {
    const imageRef = `${registry.host}/acme/tools:1.0.0`;
    const pushed = await pushBundle(registry, "acme/tools", "1.0.0", { "pack/handler.mjs": HANDLER, "pack/lib/util.mjs": "export const x = 1;\n" });
    const resolved = await resolveImageRef(imageRef, options());
    expect(resolved).toEqual({ digest: pushed.digest, mediaType: "application/vnd.oci.image.manifest.v1+json" });

    const cacheOptions = options();
    // Two calls at once share one pull: only the first says it pulled.
    const [bundle, shared] = await Promise.all([ensureArtifact({ imageRef, digest: pushed.digest }, cacheOptions), ensureArtifact({ imageRef, digest: pushed.digest }, cacheOptions)]);
    expect([bundle.pulled, shared.pulled]).toEqual([true, false]);
    expect(shared.root).toBe(bundle.root);
    expect(bundle.manifestDigest).toBe(pushed.digest);
    expect(bundle.root).toBe(path.join(cacheOptions.cacheDir, "bundles/sha256", pushed.digest.slice(7), "files"));
    expect(await modes(bundle.root)).toEqual([". 555", "pack 555", "pack/handler.mjs 444", "pack/lib 555", "pack/lib/util.mjs 444"]);
    expect(await fs.readFile(path.join(cacheOptions.cacheDir, "oci-layout"), "utf8")).toContain("1.0.0");
    await expect(fs.stat(path.join(cacheOptions.cacheDir, "blobs/sha256", pushed.layerDigest.slice(7)))).resolves.toBeTruthy();

    const handler = path.join(bundle.root, "pack/handler.mjs");
    expect(await resolveModulePath(bundle.root, "/pack/handler.mjs")).toBe(await fs.realpath(handler));
    expect(await resolveModulePath(bundle.root, "pack/handler.mjs")).toBe(await fs.realpath(handler));
    expect(await fs.readFile(handler, "utf8")).toBe(HANDLER);
    for (const modulePath of ["../handler.mjs", "/pack/../../etc/passwd", "pack", "pack/missing.mjs", "/"]) {
      await artifactError(resolveModulePath(bundle.root, modulePath), "artifact-invalid");
    }

    const offline = await ensureArtifact({ imageRef, digest: pushed.digest }, { ...cacheOptions, offline: true, credentials: () => Promise.reject(new Error("not asked")) });
    expect(offline).toEqual({ ...bundle, pulled: false });
  });

  it("a repointed tag resolves to the new digest while the recorded digest keeps its bytes", async () => {
    const imageRef = `${registry.host}/acme/moving:stable`;
    const old = await pushBundle(registry, "acme/moving", "stable", { "pack/handler.mjs": "export default () => 'old';\n" });
    const repointed = await pushBundle(registry, "acme/moving", "stable", { "pack/handler.mjs": "export default () => 'new';\n" });
    expect(repointed.digest).not.toBe(old.digest);
    expect((await resolveImageRef(imageRef, options())).digest).toBe(repointed.digest);

    const bundle = await ensureArtifact({ imageRef, digest: old.digest }, options());
    expect(await fs.readFile(path.join(bundle.root, "pack/handler.mjs"), "utf8")).toBe("export default () => 'old';\n");
  });

  it("a blob whose bytes no longer hash to its digest is refused and leaves no bundle", async () => {
    const pushed = await pushBundle(registry, "acme/tampered", "1", { "pack/handler.mjs": HANDLER, "pack/data.bin": randomBytes(2048) });
    await tamperBlob(registry, pushed.layerDigest);
    const cacheOptions = options();
    const error = await artifactError(ensureArtifact({ imageRef: `${registry.host}/acme/tampered:1`, digest: pushed.digest }, cacheOptions), "artifact-digest-mismatch");
    expect(error.message).toContain(pushed.layerDigest);
    expect(await fs.readdir(path.join(cacheOptions.cacheDir, "bundles/sha256"))).toEqual([]);
    expect(await fs.readdir(path.join(cacheOptions.cacheDir, "blobs/sha256"))).toEqual([pushed.digest.slice(7)]);
  });

  it("a missing repository, tag or digest is artifact-not-found", async () => {
    const absent = `sha256:${"0".repeat(64)}`;
    await artifactError(resolveImageRef(`${registry.host}/acme/nothing-here:1`, options()), "artifact-not-found");
    await pushBundle(registry, "acme/present", "1", { "pack/handler.mjs": HANDLER });
    await artifactError(resolveImageRef(`${registry.host}/acme/present:2`, options()), "artifact-not-found");
    const error = await artifactError(ensureArtifact({ imageRef: `${registry.host}/acme/present:1`, digest: absent }, options()), "artifact-not-found");
    expect(error.message).toContain(absent);
    await artifactError(ensureArtifact({ imageRef: `${registry.host}/acme/present:1`, digest: absent }, options({ offline: true })), "artifact-not-found");
  });

  it("a loopback registry is refused unless private registries are allowed", async () => {
    const error = await artifactError(resolveImageRef(`${registry.host}/acme/tools:1.0.0`, options({ allowPrivate: false })), "network-denied");
    expect(error.message).toContain("KINDGI_OCI_ALLOW_PRIVATE_REGISTRIES=1");
    await artifactError(ensureArtifact({ imageRef: `${registry.host}/acme/tools@sha256:${"1".repeat(64)}`, digest: `sha256:${"1".repeat(64)}` }, options({ allowPrivate: false })), "network-denied");
  });

  it("wrong or missing credentials are artifact-unauthorized, and the message carries no credential", async () => {
    const wrong = "not-the-password-7d1c";
    const error = await artifactError(resolveImageRef(`${registry.host}/acme/tools:1.0.0`, options({ credentials: async () => ({ username: registry.username, password: wrong }) })), "artifact-unauthorized");
    expect(error.message).not.toContain(wrong);
    expect(error.message).toContain(registry.host);
    await artifactError(resolveImageRef(`${registry.host}/acme/tools:1.0.0`, options({ credentials: async () => null })), "artifact-unauthorized");
  });

  it("a layer over maxBytes, and a bundle that unpacks to more than maxBytes, are artifact-too-large", async () => {
    const big = await pushBundle(registry, "acme/big", "1", { "pack/handler.mjs": HANDLER, "pack/noise.bin": randomBytes(8192) });
    await artifactError(ensureArtifact({ imageRef: `${registry.host}/acme/big:1`, digest: big.digest }, options({ maxBytes: 4096 })), "artifact-too-large");
    const bomb = await pushBundle(registry, "acme/bomb", "1", { "pack/handler.mjs": HANDLER, "pack/zeros.bin": Buffer.alloc(200_000) });
    const cacheOptions = options({ maxBytes: 50_000 });
    const error = await artifactError(ensureArtifact({ imageRef: `${registry.host}/acme/bomb:1`, digest: bomb.digest }, cacheOptions), "artifact-too-large");
    expect(error.message).toMatch(/unpacks to more than the limit of 50000 bytes/);
    expect(await fs.readdir(path.join(cacheOptions.cacheDir, "bundles/sha256"))).toEqual([]);
  });

  it.each([
    ["a `..` path", [tarEntry({ name: "../x", content: "escaped" })], /contains "\.\."/],
    ["an absolute path", [tarEntry({ name: "/etc/kindgi", content: "escaped" })], /absolute path/],
    ["a hard link", [tarEntry({ name: "pack/handler.mjs", content: HANDLER }), tarEntry({ name: "pack/link", type: "hardlink", linkname: "pack/handler.mjs" })], /hard link/],
    ["an absolute symlink", [tarEntry({ name: "pack/passwd", type: "symlink", linkname: "/etc/passwd" })], /absolute target/],
    ["a symlink leaving the bundle", [tarEntry({ name: "pack/up", type: "symlink", linkname: "../../outside" })], /leaves the bundle/],
    [
      "symlinks that lead out together",
      [tarEntry({ name: "a/", type: "directory" }), tarEntry({ name: "a/b", type: "symlink", linkname: ".." }), tarEntry({ name: "c", type: "symlink", linkname: "a/b/.." })],
      /does not resolve inside the bundle/,
    ],
  ])("a layer with %s is artifact-invalid", async (_, entries, message) => {
    const repository = `acme/invalid-${caches}`;
    const digest = await pushLayers(registry, repository, "1", [{ bytes: tarArchive(entries) }]);
    const cacheOptions = options();
    const error = await artifactError(ensureArtifact({ imageRef: `${registry.host}/${repository}:1`, digest }, cacheOptions), "artifact-invalid");
    expect(error.message).toMatch(message);
    expect(await fs.readdir(path.join(cacheOptions.cacheDir, "bundles/sha256"))).toEqual([]);
  });

  it("applies whiteouts of upper layers, and accepts an artifact with a custom artifactType's tar layers", async () => {
    const lower = tarArchive([tarEntry({ name: "a/x", content: "x" }), tarEntry({ name: "a/y", content: "y" }), tarEntry({ name: "b/z", content: "z" })]);
    const upper = tarArchive([tarEntry({ name: "a/.wh.x" }), tarEntry({ name: "b/.wh..wh..opq" }), tarEntry({ name: "b/w", content: "w" })]);
    const digest = await pushLayers(registry, "acme/layered", "1", [{ bytes: lower }, { bytes: upper }]);
    const bundle = await ensureArtifact({ imageRef: `${registry.host}/acme/layered:1`, digest }, options());
    expect(await modes(bundle.root)).toEqual([". 555", "a 555", "a/y 444", "b 555", "b/w 444"]);
  });
});

describe("an air-gapped cache", () => {
  it("filled ahead of time with skopeo serves ensureArtifact offline with the registry stopped", async () => {
    const open = await startRegistry({ auth: "none" });
    const layout = path.join(scratch, "air-gapped");
    let digest: string;
    try {
      ({ digest } = await pushBundle(open, "acme/offline", "1", { "pack/handler.mjs": HANDLER }));
      await copyToLayout(open, "acme/offline", digest, layout);
    } finally {
      await open.close();
    }
    const bundle = await ensureArtifact({ imageRef: `${open.host}/acme/offline:1`, digest }, { cacheDir: layout, allowPrivate: false, offline: true, credentials: async () => null });
    expect(await fs.readFile(await resolveModulePath(bundle.root, "/pack/handler.mjs"), "utf8")).toBe(HANDLER);
  });
});
