/**
 * A real OCI registry for tests: Debian's `docker-registry` (distribution 2.8) on 127.0.0.1, optionally behind token
 * authentication served by a small Node token server (RS256 JWTs with an `x5c` header, as the registry expects).
 * Bundles are built and pushed as a team would, with `umoci` and `skopeo`; hand-made layers (the malformed ones a
 * registry would accept anyway) go through the registry's HTTP API.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash, createPrivateKey, randomUUID, sign, X509Certificate, type KeyObject } from "node:crypto";
import fs from "node:fs/promises";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export type TestRegistry = {
  /** `127.0.0.1:PORT`, as an image reference names it. */
  host: string;
  storageDir: string;
  /** The credentials the token server accepts (unused without token authentication). */
  username: string;
  password: string;
  auth: "token" | "none";
  /** The token server's URL, with token authentication. */
  tokenRealm?: string;
  close(): Promise<void>;
};

const SERVICE = "kindgi-test-registry";
const ISSUER = "kindgi-test-token-issuer";

/** Starts a registry (and, with `auth: "token"`, its token server) and waits until `GET /v2/` answers. */
export async function startRegistry(options: { auth?: "token" | "none" } = {}): Promise<TestRegistry> {
  const auth = options.auth ?? "none";
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "kindgi-registry-"));
  const storageDir = path.join(dir, "storage");
  await fs.mkdir(storageDir);
  const username = "publisher";
  const password = randomUUID();
  let tokenServer: http.Server | undefined;
  let authConfig = "";
  let tokenRealm: string | undefined;
  if (auth === "token") {
    await run("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path.join(dir, "token.key"), "-out", path.join(dir, "token.crt"), "-days", "2", "-subj", "/CN=kindgi-test-token-issuer"]);
    const key = createPrivateKey(await fs.readFile(path.join(dir, "token.key")));
    const certificate = new X509Certificate(await fs.readFile(path.join(dir, "token.crt")));
    tokenServer = http.createServer((request, response) => issueToken(request, response, { key, certificate, username, password }));
    await new Promise<void>((resolve) => tokenServer!.listen(0, "127.0.0.1", resolve));
    tokenRealm = `http://127.0.0.1:${(tokenServer.address() as net.AddressInfo).port}/token`;
    authConfig = `auth:\n  token:\n    realm: ${tokenRealm}\n    service: ${SERVICE}\n    issuer: ${ISSUER}\n    rootcertbundle: ${path.join(dir, "token.crt")}\n`;
  }
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const config = path.join(dir, "config.yml");
  await fs.writeFile(
    config,
    `version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\nstorage:\n  filesystem:\n    rootdirectory: ${storageDir}\n  delete:\n    enabled: true\nhttp:\n  addr: ${host}\n${authConfig}`,
  );
  const child = spawn("/usr/bin/docker-registry", ["serve", config], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr!.on("data", (chunk) => (stderr += chunk));
  await waitUntilServing(host, child, () => stderr);
  return {
    host,
    storageDir,
    username,
    password,
    auth,
    tokenRealm,
    async close() {
      // Closing twice is fine: a registry already stopped (by this signal or on its own) is not waited for again.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      if (tokenServer) await new Promise((resolve) => tokenServer!.close(resolve));
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Builds a bundle of `files` (paths inside the bundle) as an OCI image with umoci and pushes it with skopeo to
 * `repository:tag`; answers the pushed manifest's digest and its one layer's digest.
 */
export async function pushBundle(registry: TestRegistry, repository: string, tag: string, files: Record<string, string | Buffer>): Promise<{ digest: string; layerDigest: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "kindgi-bundle-"));
  try {
    const layout = path.join(dir, "layout");
    const stage = path.join(dir, "stage");
    for (const [file, content] of Object.entries(files)) {
      await fs.mkdir(path.dirname(path.join(stage, file)), { recursive: true });
      await fs.writeFile(path.join(stage, file), content);
    }
    await run("umoci", ["init", "--layout", layout]);
    await run("umoci", ["new", "--image", `${layout}:${tag}`]);
    for (const entry of await fs.readdir(stage)) await run("umoci", ["insert", "--rootless", "--image", `${layout}:${tag}`, path.join(stage, entry), `/${entry}`]);
    const digestFile = path.join(dir, "digest");
    await run("skopeo", ["copy", "--quiet", "--dest-tls-verify=false", ...destinationCredentials(registry), "--digestfile", digestFile, `oci:${layout}:${tag}`, `docker://${registry.host}/${repository}:${tag}`]);
    const digest = (await fs.readFile(digestFile, "utf8")).trim();
    const manifest = JSON.parse(await readLayoutBlob(layout, digest)) as { layers: Array<{ digest: string }> };
    return { digest, layerDigest: manifest.layers[manifest.layers.length - 1].digest };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Copies `repository@digest` from the registry into the OCI image layout `dir`, as a team fills an air-gapped cache. */
export async function copyToLayout(registry: TestRegistry, repository: string, digest: string, dir: string): Promise<void> {
  const credentials = registry.auth === "token" ? ["--src-creds", `${registry.username}:${registry.password}`] : [];
  await run("skopeo", ["copy", "--quiet", "--preserve-digests", "--src-tls-verify=false", ...credentials, `docker://${registry.host}/${repository}@${digest}`, `oci:${dir}`]);
}

/**
 * Pushes an image whose layers are given as bytes (uncompressed tar unless a media type says otherwise) through the
 * registry's HTTP API; answers the manifest digest.
 */
export async function pushLayers(registry: TestRegistry, repository: string, tag: string, layers: Array<{ bytes: Buffer; mediaType?: string }>): Promise<string> {
  const authorization = await pushAuthorization(registry, repository);
  const config = Buffer.from(JSON.stringify({ architecture: "amd64", os: "linux", rootfs: { type: "layers", diff_ids: [] } }));
  const uploaded: string[] = [];
  for (const blob of [config, ...layers.map((layer) => layer.bytes)]) uploaded.push(await uploadBlob(registry, repository, blob, authorization));
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: uploaded[0], size: config.length },
      layers: layers.map((layer, index) => ({ mediaType: layer.mediaType ?? "application/vnd.oci.image.layer.v1.tar", digest: uploaded[index + 1], size: layer.bytes.length })),
    }),
  );
  const response = await fetch(`http://${registry.host}/v2/${repository}/manifests/${tag}`, {
    method: "PUT",
    headers: { "content-type": "application/vnd.oci.image.manifest.v1+json", ...authorization },
    body: new Uint8Array(manifest),
  });
  if (response.status !== 201) throw new Error(`manifest PUT answered ${response.status}: ${await response.text()}`);
  return `sha256:${createHash("sha256").update(manifest).digest("hex")}`;
}

/** Rewrites a blob in the registry's storage: same length, different bytes (a corrupted or tampered store). */
export async function tamperBlob(registry: TestRegistry, digest: string): Promise<void> {
  const hex = digest.slice("sha256:".length);
  const file = path.join(registry.storageDir, "docker/registry/v2/blobs/sha256", hex.slice(0, 2), hex, "data");
  const bytes = await fs.readFile(file);
  for (let index = 0; index < bytes.length; index++) bytes[index] ^= 0xff;
  await fs.writeFile(file, bytes);
}

/** One tar entry in ustar format (for layers no archiver would write): a file, directory, symlink or hard link. */
export function tarEntry(entry: { name: string; type?: "file" | "directory" | "symlink" | "hardlink"; content?: string; linkname?: string }): Buffer {
  const content = Buffer.from(entry.content ?? "");
  const header = Buffer.alloc(512);
  const typeflag = { file: "0", hardlink: "1", symlink: "2", directory: "5" }[entry.type ?? "file"];
  const write = (text: string, offset: number, length: number) => header.write(text, offset, length, "utf8");
  const octal = (value: number, length: number) => value.toString(8).padStart(length - 1, "0") + "\0";
  write(entry.name, 0, 100);
  write(octal(entry.type === "directory" ? 0o755 : 0o644, 8), 100, 8);
  write(octal(0, 8), 108, 8);
  write(octal(0, 8), 116, 8);
  write(octal(entry.type === "file" || entry.type === undefined ? content.length : 0, 12), 124, 12);
  write(octal(0, 12), 136, 12);
  write("        ", 148, 8);
  write(typeflag, 156, 1);
  write(entry.linkname ?? "", 157, 100);
  write("ustar\0", 257, 6);
  write("00", 263, 2);
  let checksum = 0;
  for (const byte of header) checksum += byte;
  write(octal(checksum, 7) + " ", 148, 8);
  const data = entry.type === "file" || entry.type === undefined ? Buffer.concat([content, Buffer.alloc((512 - (content.length % 512)) % 512)]) : Buffer.alloc(0);
  return Buffer.concat([header, data]);
}

/** A tar archive of `entries`, with the two zero blocks that end it. */
export function tarArchive(entries: Buffer[]): Buffer {
  return Buffer.concat([...entries, Buffer.alloc(1024)]);
}

function destinationCredentials(registry: TestRegistry): string[] {
  return registry.auth === "token" ? ["--dest-creds", `${registry.username}:${registry.password}`] : [];
}

async function readLayoutBlob(layout: string, digest: string): Promise<string> {
  return fs.readFile(path.join(layout, "blobs/sha256", digest.slice("sha256:".length)), "utf8");
}

async function pushAuthorization(registry: TestRegistry, repository: string): Promise<Record<string, string>> {
  if (registry.auth !== "token") return {};
  const url = new URL(registry.tokenRealm!);
  url.searchParams.set("service", SERVICE);
  url.searchParams.set("scope", `repository:${repository}:pull,push`);
  const basic = Buffer.from(`${registry.username}:${registry.password}`).toString("base64");
  const response = await fetch(url, { headers: { authorization: `Basic ${basic}` } });
  const { token } = (await response.json()) as { token: string };
  return { authorization: `Bearer ${token}` };
}

async function uploadBlob(registry: TestRegistry, repository: string, blob: Buffer, authorization: Record<string, string>): Promise<string> {
  const digest = `sha256:${createHash("sha256").update(blob).digest("hex")}`;
  const start = await fetch(`http://${registry.host}/v2/${repository}/blobs/uploads/`, { method: "POST", headers: authorization });
  if (start.status !== 202) throw new Error(`blob upload POST answered ${start.status}: ${await start.text()}`);
  const location = new URL(start.headers.get("location")!, `http://${registry.host}`);
  location.searchParams.set("digest", digest);
  const put = await fetch(location, { method: "PUT", headers: { "content-type": "application/octet-stream", ...authorization }, body: new Uint8Array(blob) });
  if (put.status !== 201) throw new Error(`blob upload PUT answered ${put.status}: ${await put.text()}`);
  return digest;
}

/**
 * The token endpoint: checks HTTP Basic credentials (anonymous requests and wrong credentials get 401) and issues an
 * RS256 JWT granting the actions asked for in each `scope`, signed with the key of the certificate in `x5c`.
 */
function issueToken(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  signer: { key: KeyObject; certificate: X509Certificate; username: string; password: string },
): void {
  const url = new URL(request.url ?? "/", "http://token");
  const expected = `Basic ${Buffer.from(`${signer.username}:${signer.password}`).toString("base64")}`;
  if (request.headers.authorization !== expected) {
    response.writeHead(401, { "content-type": "application/json" }).end(JSON.stringify({ errors: [{ code: "UNAUTHORIZED" }] }));
    return;
  }
  const access = url.searchParams.getAll("scope").map((scope) => {
    const [type, name, actions] = scope.split(":");
    return { type, name, actions: actions.split(",") };
  });
  const now = Math.floor(Date.now() / 1000);
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
  const header = encode({ typ: "JWT", alg: "RS256", x5c: [signer.certificate.raw.toString("base64")] });
  const claims = encode({ iss: ISSUER, sub: signer.username, aud: url.searchParams.get("service"), exp: now + 300, nbf: now - 10, iat: now, jti: randomUUID(), access });
  const signature = sign("sha256", Buffer.from(`${header}.${claims}`), signer.key).toString("base64url");
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token: `${header}.${claims}.${signature}`, expires_in: 300 }));
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitUntilServing(host: string, child: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with ${child.exitCode}: ${stderr()}`);
    try {
      const response = await fetch(`http://${host}/v2/`);
      await response.arrayBuffer();
      if (response.status === 200 || response.status === 401) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill("SIGTERM");
  throw new Error(`docker-registry did not answer on ${host} within 15 s: ${stderr()}`);
}
