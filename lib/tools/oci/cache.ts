/**
 * The local cache of handler bundles stored as OCI artifacts, and the way a bundle gets into it.
 *
 * The cache directory is an OCI image layout (`oci-layout`, `blobs/sha256/<hex>`): a team can fill it ahead of time
 * for an air-gapped server with `skopeo copy --preserve-digests docker://host/repo@sha256:… oci:<cacheDir>` (the
 * `index.json` skopeo writes is not read). Beside the layout, each bundle is unpacked once, read-only, at
 * `bundles/sha256/<manifest hex>/files/`, next to a `complete.json` marker; the directory appears by an atomic rename,
 * so a bundle directory that exists is complete.
 *
 * Everything is verified by digest: the manifest bytes must hash to the digest recorded at registration, each layer
 * blob to the digest its manifest names (a blob found in the layout is hashed as well), and the layers are unpacked by
 * a tar reader that refuses links, devices, absolute and `..` paths and symlinks leaving the bundle.
 */
import { createHash, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import * as tar from "tar";
import { MANIFEST_MEDIA_TYPES, MAX_MANIFEST_BYTES, RegistryClient, sha256Digest, type RegistryOptions } from "./client";
import { ArtifactError } from "./errors";
import { assertSha256Digest, parseImageRef, type ImageRef } from "./reference";

/** Where and how bundles are cached and fetched. */
export type ArtifactCacheOptions = RegistryOptions & {
  cacheDir: string;
  /** The largest blob, and the largest unpacked bundle, in bytes; default {@link DEFAULT_MAX_BYTES}. */
  maxBytes?: number;
};

/** An unpacked bundle: `root` is its read-only file tree. */
/**
 * An unpacked bundle: `root` holds its files. `pulled` is true when this call brought it into the cache with its own
 * options (its credentials read it from the registry); false when it was there already, or another caller's pull
 * brought it.
 */
export type ArtifactBundle = { root: string; manifestDigest: string; pulled: boolean };

/** 256 MiB: the default limit of a blob and of a bundle's unpacked files. */
export const DEFAULT_MAX_BYTES = 256 * 1024 * 1024;

/** Layer media types unpacked as tar (gzip-compressed or not; the reader detects which). */
const TAR_LAYER_MEDIA_TYPES = new Set([
  "application/vnd.oci.image.layer.v1.tar",
  "application/vnd.oci.image.layer.v1.tar+gzip",
  "application/vnd.docker.image.rootfs.diff.tar.gzip",
]);

const COMPLETE_MARKER = "complete.json";
const WHITEOUT_PREFIX = ".wh.";
const OPAQUE_WHITEOUT = ".wh..wh..opq";

type Descriptor = { mediaType: string; digest: string; size: number };

/** Unpacks in progress in this process, per cache directory and manifest digest: concurrent callers share one. */
const inFlight = new Map<string, Promise<ArtifactBundle>>();

/**
 * The unpacked bundle of manifest `digest` (the digest recorded at registration) from the repository `imageRef`
 * names; the tag of `imageRef`, if any, plays no part. A bundle already in the cache is answered without the
 * network; otherwise the manifest and layers come from the cache's layout or from the registry. Concurrent calls for
 * the same digest and cache share one pull (and so the first caller's signal and credentials).
 */
export function ensureArtifact(artifact: { imageRef: string; digest: string }, options: ArtifactCacheOptions): Promise<ArtifactBundle> {
  let ref: ImageRef;
  try {
    ref = parseImageRef(artifact.imageRef);
    assertSha256Digest(artifact.digest);
  } catch (error) {
    return Promise.reject(error);
  }
  const key = `${path.resolve(options.cacheDir)}\n${artifact.digest}`;
  const pending = inFlight.get(key);
  if (pending) return pending.then((bundle) => ({ ...bundle, pulled: false }));
  const own = materialize(ref, artifact.digest, options).finally(() => inFlight.delete(key));
  inFlight.set(key, own);
  return own;
}

/**
 * The absolute path of a bundle's module (`/pack/handler.mjs` and `pack/handler.mjs` alike name a path inside the
 * bundle). Throws `artifact-invalid` when it leaves the bundle (also through a symlink) or is not a regular file.
 */
export async function resolveModulePath(root: string, modulePath: string): Promise<string> {
  const invalid = (reason: string) => new ArtifactError("artifact-invalid", `module path "${modulePath}" ${reason}`);
  const relative = path.posix.normalize(modulePath.replace(/^\/+/, ""));
  if (relative === "." || relative === ".." || relative.startsWith("../")) throw invalid("is not inside the bundle");
  const candidate = path.join(root, relative);
  let real: string;
  try {
    real = await fs.realpath(candidate);
  } catch {
    throw invalid("does not exist in the bundle");
  }
  const realRoot = await fs.realpath(root);
  if (!real.startsWith(realRoot + path.sep)) throw invalid("leaves the bundle through a symlink");
  if (!(await fs.stat(real)).isFile()) throw invalid("is not a regular file in the bundle");
  return real;
}

async function materialize(ref: ImageRef, digest: string, options: ArtifactCacheOptions): Promise<ArtifactBundle> {
  const layout = new CacheLayout(options.cacheDir, options.offline === true);
  const hex = digest.slice("sha256:".length);
  const bundleDir = layout.bundleDir(hex);
  const bundle = { root: path.join(bundleDir, "files"), manifestDigest: digest, pulled: false };
  if (await exists(path.join(bundleDir, COMPLETE_MARKER))) return bundle;
  await layout.create();
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const source = `${ref.registry}/${ref.repository}@${digest}`;
  let client: RegistryClient | undefined;
  const registry = () => {
    if (options.offline) throw new ArtifactError("artifact-not-found", `${source} is not in the artifact cache ${options.cacheDir}, and the cache is used offline`);
    client ??= new RegistryClient(ref.registry, ref.repository, options);
    return client;
  };
  try {
    const manifest = parseManifest(await layout.manifest(digest, source, registry), source);
    let layersBytes = 0;
    for (const layer of manifest.layers) {
      if (!TAR_LAYER_MEDIA_TYPES.has(layer.mediaType)) throw new ArtifactError("artifact-invalid", `layer ${layer.digest} of ${source} has media type "${layer.mediaType}", which is not a tar layer`);
      if (layer.size > maxBytes) throw new ArtifactError("artifact-too-large", `layer ${layer.digest} of ${source} is ${layer.size} bytes, over the limit of ${maxBytes}`);
      layersBytes += layer.size;
    }
    if (layersBytes > maxBytes) throw new ArtifactError("artifact-too-large", `the layers of ${source} are ${layersBytes} bytes together, over the limit of ${maxBytes}`);
    const blobs: string[] = [];
    for (const layer of manifest.layers) blobs.push(await layout.blob(layer.digest, maxBytes, source, registry));
    await unpack(manifest.layers.map((layer, index) => ({ digest: layer.digest, file: blobs[index] })), bundleDir, { digest, source, maxBytes });
    // Blobs found in the cache's layout (filled ahead of time, or by another tenant) prove nothing about these
    // credentials: only a pull that asked the registry does.
    return { ...bundle, pulled: client !== undefined };
  } finally {
    client?.close();
  }
}

/** Reads a manifest: an OCI or Docker v2 image manifest (an artifact manifest with tar layers is one too). */
function parseManifest(bytes: Buffer, source: string): { layers: Descriptor[] } {
  const invalid = (reason: string) => new ArtifactError("artifact-invalid", `manifest ${source} ${reason}`);
  let manifest: { schemaVersion?: unknown; mediaType?: unknown; layers?: unknown; config?: unknown };
  try {
    manifest = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw invalid("is not JSON");
  }
  if (typeof manifest !== "object" || manifest === null || manifest.schemaVersion !== 2) throw invalid("is not a schema version 2 manifest");
  if (manifest.mediaType !== undefined && !MANIFEST_MEDIA_TYPES.includes(manifest.mediaType as string)) {
    throw invalid(`has media type "${String(manifest.mediaType)}", not an OCI or Docker v2 image manifest (an image index must be resolved to one manifest first)`);
  }
  if (!Array.isArray(manifest.layers) || typeof manifest.config !== "object") throw invalid("has no config and layers (it is not an image manifest)");
  return {
    layers: manifest.layers.map((layer: Partial<Descriptor>, index) => {
      if (typeof layer?.mediaType !== "string" || typeof layer.digest !== "string" || !Number.isSafeInteger(layer.size) || (layer.size as number) < 0) {
        throw invalid(`has an invalid layer descriptor at index ${index}`);
      }
      assertSha256Digest(layer.digest);
      return { mediaType: layer.mediaType, digest: layer.digest, size: layer.size as number };
    }),
  };
}

/** The OCI image layout of a cache directory, with the unpacked bundles beside it. */
class CacheLayout {
  private readonly blobsDir: string;

  constructor(
    private readonly dir: string,
    private readonly offline: boolean,
  ) {
    this.blobsDir = path.join(dir, "blobs", "sha256");
  }

  bundleDir(hex: string): string {
    return path.join(this.dir, "bundles", "sha256", hex);
  }

  async create(): Promise<void> {
    await fs.mkdir(this.blobsDir, { recursive: true });
    await fs.mkdir(path.join(this.dir, "bundles", "sha256"), { recursive: true });
    await fs.writeFile(path.join(this.dir, "oci-layout"), JSON.stringify({ imageLayoutVersion: "1.0.0" }), { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== "EEXIST") throw error;
    });
  }

  /** The manifest's bytes, from the layout or pulled (and then kept in the layout), verified against `digest`. */
  async manifest(digest: string, source: string, registry: () => RegistryClient): Promise<Buffer> {
    const file = await this.verifiedBlob(digest, MAX_MANIFEST_BYTES, source, "manifest");
    if (file) return fs.readFile(file);
    const { bytes } = await registry().getManifest(digest);
    const actual = sha256Digest(bytes);
    if (actual !== digest) throw new ArtifactError("artifact-digest-mismatch", `manifest ${source} from the registry hashes to ${actual}`);
    const temporary = path.join(this.blobsDir, `.tmp-${randomUUID()}`);
    await fs.writeFile(temporary, bytes);
    await fs.rename(temporary, this.blobPath(digest));
    return bytes;
  }

  /** The path of a layer blob in the layout, pulled first (streamed, size-capped, hashed) when it is not there. */
  async blob(digest: string, maxBytes: number, source: string, registry: () => RegistryClient): Promise<string> {
    const existing = await this.verifiedBlob(digest, maxBytes, source, "layer");
    if (existing) return existing;
    const response = await registry().getBlob(digest);
    const what = `layer ${digest} of ${source}`;
    if (Number(response.headers.get("content-length") ?? 0) > maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw new ArtifactError("artifact-too-large", `${what} is larger than the limit of ${maxBytes} bytes`);
    }
    const temporary = path.join(this.blobsDir, `.tmp-${randomUUID()}`);
    try {
      const hash = createHash("sha256");
      let size = 0;
      const meter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.byteLength;
          if (size > maxBytes) return callback(new ArtifactError("artifact-too-large", `${what} is larger than the limit of ${maxBytes} bytes`));
          hash.update(chunk);
          callback(null, chunk);
        },
      });
      if (!response.body) throw new ArtifactError("registry-unreachable", `registry answered ${what} without a body`);
      await pipeline(response.body as unknown as AsyncIterable<Uint8Array>, meter, createWriteStream(temporary));
      const actual = `sha256:${hash.digest("hex")}`;
      if (actual !== digest) throw new ArtifactError("artifact-digest-mismatch", `${what} from the registry hashes to ${actual}`);
      await fs.rename(temporary, this.blobPath(digest));
    } catch (error) {
      await fs.rm(temporary, { force: true });
      if (error instanceof ArtifactError || !(error instanceof Error) || error.name === "AbortError") throw error;
      throw new ArtifactError("registry-unreachable", `${what} could not be downloaded: ${error.message}`, { cause: error });
    }
    return this.blobPath(digest);
  }

  private blobPath(digest: string): string {
    return path.join(this.blobsDir, digest.slice("sha256:".length));
  }

  /**
   * The layout's file for `digest` when it is there and hashes to it. A file with other bytes is removed, to be pulled
   * again; offline that is an `artifact-digest-mismatch`, for there is nothing to pull it from.
   */
  private async verifiedBlob(digest: string, maxBytes: number, source: string, kind: string): Promise<string | undefined> {
    const file = this.blobPath(digest);
    const stat = await fs.stat(file).catch(() => undefined);
    if (!stat) return undefined;
    if (stat.size > maxBytes) throw new ArtifactError("artifact-too-large", `${kind} ${digest} of ${source} in the artifact cache is ${stat.size} bytes, over the limit of ${maxBytes}`);
    const actual = await hashFile(file);
    if (actual === digest) return file;
    await fs.rm(file, { force: true });
    if (!this.offline) return undefined;
    throw new ArtifactError("artifact-digest-mismatch", `${kind} ${digest} of ${source} in the artifact cache ${this.dir} hashes to ${actual}; the file was removed`);
  }
}

/**
 * Unpacks the layers in order into a staging directory beside `bundleDir`, makes it read-only and renames it into
 * place. Each layer is read twice: first to check every entry and collect its whiteouts (which remove files of the
 * layers below), then to extract it.
 */
async function unpack(layers: Array<{ digest: string; file: string }>, bundleDir: string, context: { digest: string; source: string; maxBytes: number }): Promise<void> {
  const staging = `${path.dirname(bundleDir)}/.tmp-${path.basename(bundleDir)}-${randomUUID()}`;
  const files = path.join(staging, "files");
  await fs.mkdir(files, { recursive: true });
  try {
    let unpackedBytes = 0;
    for (const layer of layers) {
      const what = `layer ${layer.digest} of ${context.source}`;
      const checked = await checkLayer(layer.file, what);
      unpackedBytes += checked.bytes;
      if (unpackedBytes > context.maxBytes) throw new ArtifactError("artifact-too-large", `${context.source} unpacks to more than the limit of ${context.maxBytes} bytes`);
      for (const whiteout of checked.whiteouts) await applyWhiteout(files, whiteout, what);
      const warnings: string[] = [];
      try {
        const extract = tar.x({
          cwd: files,
          preserveOwner: false,
          filter: (entryPath) => !path.posix.basename(entryPath).startsWith(WHITEOUT_PREFIX),
          onwarn: tarWarnings(warnings),
        });
        await pipeline([createReadStream(layer.file), ...((await isGzip(layer.file)) ? [createGunzip()] : []), endOfArchive(), extract]);
      } catch (error) {
        warnings.push((error as Error).message);
      }
      if (warnings.length > 0) throw new ArtifactError("artifact-invalid", `${what} could not be unpacked: ${warnings[0]}`);
    }
    await sealTree(files, files, context.source);
    await fs.writeFile(path.join(staging, COMPLETE_MARKER), JSON.stringify({ manifestDigest: context.digest, layers: layers.map((layer) => layer.digest), unpackedBytes }));
    await fs.chmod(path.join(staging, COMPLETE_MARKER), 0o444);
    await fs.chmod(staging, 0o555);
    try {
      await fs.rename(staging, bundleDir);
    } catch (error) {
      // Another process unpacked the same bundle first: its copy is as good as ours.
      if (!(await exists(path.join(bundleDir, COMPLETE_MARKER)))) throw error;
      await removeTree(staging);
    }
  } catch (error) {
    await removeTree(staging);
    throw error;
  }
}

type Whiteout = { kind: "file"; path: string } | { kind: "opaque"; dir: string };

/** Checks every entry of a layer without writing anything; answers its whiteouts and the bytes its files unpack to. */
async function checkLayer(file: string, what: string): Promise<{ whiteouts: Whiteout[]; bytes: number }> {
  const whiteouts: Whiteout[] = [];
  let bytes = 0;
  let problem: string | undefined;
  const warnings: string[] = [];
  try {
    await tar.t({
      file,
      onwarn: tarWarnings(warnings),
      onReadEntry: (entry) => {
        problem ??= entryProblem(entry.path, entry.type, entry.linkpath);
        const name = path.posix.basename(entry.path);
        const dir = path.posix.dirname(path.posix.normalize(entry.path));
        if (name === OPAQUE_WHITEOUT) whiteouts.push({ kind: "opaque", dir });
        else if (name.startsWith(WHITEOUT_PREFIX)) whiteouts.push({ kind: "file", path: path.posix.join(dir, name.slice(WHITEOUT_PREFIX.length)) });
        else bytes += entry.size ?? 0;
        entry.resume();
      },
    });
  } catch (error) {
    warnings.push((error as Error).message);
  }
  if (warnings.length > 0) throw new ArtifactError("artifact-invalid", `${what} is not a readable tar archive: ${warnings[0]}`);
  if (problem) throw new ArtifactError("artifact-invalid", `${what} ${problem}`);
  return { whiteouts, bytes };
}

/**
 * A tar `onwarn` that collects every warning as a refusal but one: an archive that ends right after its last file's
 * data, without the padding and end-of-archive blocks (umoci writes such layers, and Go's tar reader, as used by
 * container runtimes, reads them). A last file whose data is itself cut short is still refused.
 */
function tarWarnings(warnings: string[]): (code: string, message: string, data: Record<string, unknown>) => void {
  return (code, message, data) => {
    const available = /only (\d+) available/.exec(message);
    const remain = (data.entry as tar.ReadEntry | undefined)?.remain;
    const dataComplete = code === "TAR_BAD_ARCHIVE" && available !== null && remain !== undefined && Number(available[1]) >= remain;
    if (!dataComplete) warnings.push(`${code}: ${message}`);
  };
}

/**
 * Completes a tar stream with the padding of its last block and the end-of-archive blocks, which some archivers leave
 * out (see {@link tarWarnings}; the checking pass has refused an archive whose last file is cut short). Zero blocks
 * after an archive's end are ignored by readers, so a complete archive is unchanged.
 */
function endOfArchive(): Transform {
  let size = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      size += chunk.byteLength;
      callback(null, chunk);
    },
    flush(callback) {
      callback(null, Buffer.alloc(((512 - (size % 512)) % 512) + 1024));
    },
  });
}

async function isGzip(file: string): Promise<boolean> {
  const handle = await fs.open(file);
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** Why a tar entry may not be unpacked, or undefined when it may. */
function entryProblem(entryPath: string, type: string, linkpath: string | undefined): string | undefined {
  if (entryPath.startsWith("/") || /^[a-zA-Z]:/.test(entryPath)) return `has an entry with an absolute path ("${entryPath}")`;
  if (entryPath.split("/").includes("..")) return `has an entry whose path contains ".." ("${entryPath}")`;
  switch (type) {
    case "File":
    case "OldFile":
    case "ContiguousFile":
    case "Directory":
      return undefined;
    case "SymbolicLink": {
      const target = linkpath ?? "";
      if (target.startsWith("/")) return `has a symlink with an absolute target ("${entryPath}" -> "${target}")`;
      const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(entryPath), target));
      if (resolved === ".." || resolved.startsWith("../")) return `has a symlink that leaves the bundle ("${entryPath}" -> "${target}")`;
      return undefined;
    }
    case "Link":
      return `has a hard link ("${entryPath}"), which bundles may not contain`;
    default:
      return `has an entry of type ${type} ("${entryPath}"); bundles hold only files, directories and symlinks`;
  }
}

/** Removes what a whiteout hides from the layers below, refusing a path that resolves outside the bundle. */
async function applyWhiteout(files: string, whiteout: Whiteout, what: string): Promise<void> {
  const relative = whiteout.kind === "file" ? whiteout.path : whiteout.dir;
  const parent = await fs.realpath(path.join(files, path.posix.dirname(relative))).catch(() => undefined);
  if (!parent) return;
  const realFiles = await fs.realpath(files);
  if (parent !== realFiles && !parent.startsWith(realFiles + path.sep)) throw new ArtifactError("artifact-invalid", `${what} has a whiteout that resolves outside the bundle ("${relative}")`);
  const target = path.join(parent, path.posix.basename(relative));
  if (whiteout.kind === "file") {
    await fs.rm(target, { recursive: true, force: true });
    return;
  }
  const directory = relative === "." ? realFiles : target;
  const stat = await fs.lstat(directory).catch(() => undefined);
  if (!stat?.isDirectory()) return;
  for (const child of await fs.readdir(directory)) await fs.rm(path.join(directory, child), { recursive: true, force: true });
}

/**
 * Checks that every symlink resolves inside the bundle (symlinks that each stay inside can still lead out together)
 * and makes the tree read-only: files 0444, directories 0555 (after their contents).
 */
async function sealTree(root: string, directory: string, source: string): Promise<void> {
  const realRoot = await fs.realpath(root);
  for (const entry of await fs.readdir(directory, { withFileTypes: true })) {
    const entryPath = path.join(directory, entry.name);
    if (entry.isSymbolicLink()) {
      const real = await fs.realpath(entryPath).catch(() => undefined);
      if (!real || !(real === realRoot || real.startsWith(realRoot + path.sep))) {
        throw new ArtifactError("artifact-invalid", `${source} has a symlink that does not resolve inside the bundle ("${path.relative(root, entryPath)}")`);
      }
    } else if (entry.isDirectory()) {
      await sealTree(root, entryPath, source);
    } else if (entry.isFile()) {
      await fs.chmod(entryPath, 0o444);
    } else {
      throw new ArtifactError("artifact-invalid", `${source} unpacked to an entry that is not a file, directory or symlink ("${path.relative(root, entryPath)}")`);
    }
  }
  await fs.chmod(directory, 0o555);
}

/** Removes a tree that may have been made read-only. */
async function removeTree(directory: string): Promise<void> {
  const reopen = async (current: string): Promise<void> => {
    await fs.chmod(current, 0o755).catch(() => undefined);
    const entries = await fs.readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) if (entry.isDirectory()) await reopen(path.join(current, entry.name));
  };
  await reopen(directory);
  await fs.rm(directory, { recursive: true, force: true });
}

async function hashFile(file: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return `sha256:${hash.digest("hex")}`;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
