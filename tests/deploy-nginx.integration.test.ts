/**
 * The deployment in deploy/ proven: Debian's nginx, with the repo's deploy/nginx.conf (only its upstream ports and
 * listen line replaced), in front of three `npm start` replicas on one PostgreSQL database. Through nginx, runs wait
 * on approvals with their streams open; one replica is killed (SIGKILL) while some runs execute a slow mutating call;
 * the approvals are decided through nginx, and every run completes, every mutating call executed once per
 * idempotency key by the receiving system, every stream completes or resumes with Last-Event-ID without a gap.
 * Not skipped without nginx: it fails, saying so (CI installs it, .ci/run).
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, kindgi, tenantOn, type TestTenant } from "./helpers/api";
import { httpTool, script, sleep, startIdempotentReceiver } from "./helpers/kernel";
import { startReplicas, type Replicas } from "./helpers/replicas";
import { freePort, root, waitForProcessGroupExit } from "./helpers/server";
import { readSse, type SseFrame, type SseReader } from "./helpers/sse";
import type { RecordingServer } from "../lib/tools/invokers/testing/recording-server";

const NGINX = "/usr/sbin/nginx";
const REPLICAS = 3;
const RUNS = 6;
const CALL_MS = 1_500;
const PUBLIC_HOST = "kindgi.example.test";
const TERMINAL = ["run-completed", "run-failed", "run-cancelled"];
const ended = (frames: SseFrame[]) => frames.some((frame) => TERMINAL.includes(frame.event));

type Nginx = { baseUrl: string; accessLog: () => string[]; stop: () => Promise<void>; output: () => string };

/**
 * deploy/nginx.conf with its upstream servers (127.0.0.1:3001 …) on `ports` and its `listen 80;` on 127.0.0.1:`port`;
 * throws when the file no longer has what is replaced.
 */
function renderNginxConf(ports: number[], port: number): string {
  const committed = fs.readFileSync(path.join(root, "deploy/nginx.conf"), "utf8");
  const upstreams = [...committed.matchAll(/^\s*server 127\.0\.0\.1:(300\d)\b/gm)].map((match) => match[1]);
  if (upstreams.length !== ports.length) throw new Error(`deploy/nginx.conf lists ${upstreams.length} upstream servers (127.0.0.1:300N), the test runs ${ports.length}`);
  let index = 0;
  let rendered = committed.replace(/^(\s*server )127\.0\.0\.1:300\d\b/gm, (_, head: string) => `${head}127.0.0.1:${ports[index++]}`);
  if (!/^\s*listen 80;/m.test(rendered)) throw new Error("deploy/nginx.conf has no `listen 80;` line to put on the test's port");
  rendered = rendered.replace(/^(\s*)listen 80;/m, `$1listen 127.0.0.1:${port};`);
  return rendered;
}

function assertNginxInstalled(): void {
  if (!fs.existsSync(NGINX)) throw new Error(`nginx is not installed (${NGINX} is missing): install Debian's nginx (apt-get install -y nginx; .ci/run does) — this test does not skip without it`);
}

/** Starts Debian's nginx in the foreground with a prefix of its own, deploy/nginx.conf included in a minimal main configuration. */
async function startNginx(ports: number[]): Promise<Nginx> {
  assertNginxInstalled();
  const port = await freePort();
  const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "kindgi-nginx-"));
  // nginx started by root runs its workers as nobody: they must reach the temp folders under the prefix.
  fs.chmodSync(prefix, 0o755);
  fs.writeFileSync(path.join(prefix, "kindgi.conf"), renderNginxConf(ports, port));
  const accessLog = path.join(prefix, "access.log");
  fs.writeFileSync(
    path.join(prefix, "nginx.conf"),
    [
      "worker_processes 1;",
      `pid ${prefix}/nginx.pid;`,
      `error_log ${prefix}/error.log info;`,
      "events { worker_connections 1024; }",
      "http {",
      "  log_format kindgi '$request_method $request_uri $status upstream=$upstream_addr upstream_status=$upstream_status';",
      `  access_log ${accessLog} kindgi;`,
      ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((kind) => `  ${kind}_temp_path ${prefix}/${kind}_temp;`),
      `  include ${prefix}/kindgi.conf;`,
      "}",
      "",
    ].join("\n"),
  );
  const child: ChildProcessByStdio<null, Readable, Readable> = spawn(NGINX, ["-p", prefix, "-e", `${prefix}/error.log`, "-c", `${prefix}/nginx.conf`, "-g", "daemon off;"], { stdio: ["ignore", "pipe", "pipe"], detached: true });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk));
  const errorLog = () => (fs.existsSync(`${prefix}/error.log`) ? fs.readFileSync(`${prefix}/error.log`, "utf8") : "");
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid!, "SIGQUIT");
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          // already gone
        }
      }, 3_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(prefix, { recursive: true, force: true });
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 15_000; Date.now() < deadline; await sleep(100)) {
    if (child.exitCode !== null) {
      const message = `nginx exited with ${child.exitCode}:\n${output}\n${errorLog()}`;
      await stop();
      throw new Error(message);
    }
    try {
      if ((await fetch(`${baseUrl}/health`)).ok)
        return { baseUrl, accessLog: () => fs.readFileSync(accessLog, "utf8").split("\n").filter(Boolean), stop, output: () => `${output}\n${errorLog()}` };
    } catch {
      // not listening yet
    }
  }
  const message = `nginx did not answer GET /health:\n${output}\n${errorLog()}`;
  await stop();
  throw new Error(message);
}

/** A POST with a Host header of the caller's choice (fetch sends the URL's). */
function postWithHost(baseUrl: string, urlPath: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: any }> {
  const url = new URL(baseUrl);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: url.hostname, port: url.port, method: "POST", path: urlPath, headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload), Connection: "close", ...headers } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => {
        let parsed: unknown = undefined;
        try {
          parsed = JSON.parse(text);
        } catch {
          // an event stream, or empty
        }
        resolve({ status: response.statusCode ?? 0, body: parsed ?? text });
      });
    });
    request.on("error", reject);
    request.end(payload);
  });
}

describe.skipIf(kindgi().backend !== "postgresql")("the deployment: nginx (deploy/nginx.conf) in front of three replicas", () => {
  let replicas: Replicas;
  let receiver: RecordingServer;
  let nginx: Nginx;
  let tenant: TestTenant;
  /** Executions per Idempotency-Key (a repeat is answered from memory, as a payment API would), and raw requests. */
  let executions: Map<string, number>;
  let received: Map<string, number>;
  let clearReceiver: () => void;
  const viaNginx = (method: string, urlPath: string, body?: unknown, headers?: Record<string, string>) => call(method, urlPath, { key: tenant.key, body, baseUrl: nginx.baseUrl, headers });

  beforeAll(async () => {
    assertNginxInstalled();
    [replicas, receiver] = await Promise.all([
      startReplicas({ count: REPLICAS, env: { KINDGI_RUN_LEASE_MS: "2000", KINDGI_RUN_POLL_MS: "200", KINDGI_PUBLIC_URL: `http://${PUBLIC_HOST}` } }),
      startIdempotentReceiver(CALL_MS).then((started) => {
        ({ executions, received, clear: clearReceiver } = started);
        return started.server;
      }),
    ]);
    nginx = await startNginx(replicas.servers.map((server) => Number(new URL(server.baseUrl).port)));
    tenant = await tenantOn(nginx.baseUrl, replicas.operatorToken, "deploy nginx");
  }, 180_000);

  afterAll(async () => {
    await nginx?.stop();
    await replicas?.stop();
    await receiver?.close();
  });

  it("passes the host a client named, so /v1/mcp answers the public host and refuses another (X-Forwarded-Host is not the client's to set)", async () => {
    const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "deploy", version: "1" } } };
    const headers = { Authorization: `Bearer ${tenant.key}`, Accept: "application/json, text/event-stream" };
    const publicHost = await postWithHost(nginx.baseUrl, "/v1/mcp", { ...headers, Host: PUBLIC_HOST }, initialize);
    expect(publicHost.status, JSON.stringify(publicHost.body)).toBe(200);
    const other = await postWithHost(nginx.baseUrl, "/v1/mcp", { ...headers, Host: "rebound.example.net", "X-Forwarded-Host": PUBLIC_HOST }, initialize);
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe("host-not-allowed");
  });

  it("gives each request one id, nginx's or the client's, that the replica answers and logs under", async () => {
    const own = await viaNginx("GET", "/v1/whoami");
    // nginx's $request_id: 32 hex digits (the replica would make a UUID).
    expect(own.headers.get("x-request-id")).toMatch(/^[0-9a-f]{32}$/);
    const given = await viaNginx("GET", "/v1/runs/00000000-0000-4000-8000-000000000000", undefined, { "X-Request-Id": "client-trace-42" });
    expect(given.status).toBe(404);
    expect(given.headers.get("x-request-id")).toBe("client-trace-42");
    expect(given.body.error.requestId).toBe("client-trace-42");
  });

  it("one replica killed mid-run: every run completes, each mutating call executed once per key, every stream ends whole", async () => {
    const tool = httpTool(receiver, { mutating: true, effects: [{ kind: "writes" }], description: "Charges a card (slowly)." }, { urlTemplate: `${receiver.origin}/charge` });
    const registered = await viaNginx("POST", "/v1/tools", { ...tool, projectId: tenant.projectId });
    expect(registered.status, registered.text).toBe(201);
    const agentId = `deploy.agent-${Date.now()}`;
    const agent = await viaNginx("POST", "/v1/agents", { id: agentId, version: "1.0.0", name: "Agent", instructions: "Act.", capabilities: [{ kind: "llm-inference" }], tools: [{ id: tool.id, version: "^1.0.0" }], retrieval: [], guardrails: [], preferredProvider: "scripted", projectId: tenant.projectId });
    expect(agent.status, agent.text).toBe(201);

    // Six runs, each with two mutating calls: every call waits on a person's approval.
    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const userMessage = script({ toolCalls: [{ name: tool.id, arguments: { word: `run${i}-first` } }] }, { toolCalls: [{ name: tool.id, arguments: { word: `run${i}-second` } }] }, { text: `billed ${i}` });
      const created = await viaNginx("POST", "/v1/runs", { agent: { id: agentId }, input: { userMessage }, options: { wait: false } });
      expect(created.status, created.text).toBe(202);
      runIds.push(created.body.id);
    }
    const approvalOf = new Map<string, { id: string }>();
    for (const deadline = Date.now() + 30_000; approvalOf.size < RUNS && Date.now() < deadline; await sleep(100)) {
      const pending = await viaNginx("GET", "/v1/approvals?status=pending&limit=100");
      expect(pending.status, pending.text).toBe(200);
      for (const approval of pending.body.data) if (runIds.includes(approval.runId)) approvalOf.set(approval.runId, approval);
    }
    expect(approvalOf.size).toBe(RUNS);

    // A stream per run through nginx: round robin puts two on each replica.
    const streams = await Promise.all(runIds.map(async (id) => readSse(await fetch(`${nginx.baseUrl}/v1/runs/${id}/stream`, { headers: { Authorization: `Bearer ${tenant.key}` } }))));
    for (const stream of streams) expect(stream.response.status).toBe(200);
    await Promise.all(streams.map((stream) => stream.waitFor((frames) => frames.some((frame) => frame.event === "approval-requested"))));

    // Half of the runs approved: they execute their first (slow) call on the replica that took the decision.
    const decided: string[] = [];
    for (const id of runIds.slice(0, RUNS / 2)) {
      const approval = approvalOf.get(id)!;
      const response = await viaNginx("POST", `/v1/approvals/${approval.id}/complete`, { decision: "approve" });
      expect(response.status, response.text).toBe(200);
      decided.push(approval.id);
    }
    for (const until = Date.now() + 20_000; received.size < RUNS / 2 && Date.now() < until; ) await sleep(20);
    expect(received.size).toBe(RUNS / 2);

    // The replica that took the first decision (nginx's access log says which) dies while those calls are in flight.
    const line = nginx.accessLog().find((entry) => entry.startsWith(`POST /v1/approvals/${decided[0]}/complete 200 `));
    const victimPort = line?.match(/upstream=127\.0\.0\.1:(\d+)/)?.[1];
    const victim = replicas.servers.find((server) => new URL(server.baseUrl).port === victimPort);
    expect(victim, `no replica for ${line}`).toBeDefined();
    const pgid = victim!.process.pid!;
    process.kill(-pgid, "SIGKILL");
    await waitForProcessGroupExit(pgid);

    // Every approval decided through nginx, as they come, until every run is finished.
    const finished = new Map<string, any>();
    const decisions: number[] = [];
    for (const deadline = Date.now() + 60_000; finished.size < RUNS && Date.now() < deadline; await sleep(200)) {
      const pending = await viaNginx("GET", "/v1/approvals?status=pending&limit=100");
      expect(pending.status, pending.text).toBe(200);
      for (const approval of pending.body.data.filter((entry: { runId: string }) => runIds.includes(entry.runId))) {
        const response = await viaNginx("POST", `/v1/approvals/${approval.id}/complete`, { decision: "approve" });
        expect(response.status, response.text).toBe(200);
        decisions.push(response.status);
      }
      for (const id of runIds) {
        if (finished.has(id)) continue;
        const run = await viaNginx("GET", `/v1/runs/${id}`);
        expect(run.status, run.text).toBe(200);
        if (["completed", "failed", "cancelled"].includes(run.body.status)) finished.set(id, run.body);
      }
    }
    expect(finished.size).toBe(RUNS);
    runIds.forEach((id, i) => expect(finished.get(id)).toMatchObject({ status: "completed", output: `billed ${i}`, usage: { toolCalls: 2 } }));
    expect(decisions.length).toBeGreaterThanOrEqual(RUNS * 2 - RUNS / 2);

    // Each call executed once by the receiving system, under its own key; the calls in flight on the dead replica
    // were sent again, with the same key, by the replica that took their run over.
    expect(executions.size).toBe(RUNS * 2);
    expect([...executions.values()].every((count) => count === 1)).toBe(true);
    expect([...received.values()].some((count) => count > 1)).toBe(true);
    const journals = await Promise.all(runIds.map(async (id) => (await viaNginx("GET", `/v1/runs/${id}/journal?limit=1000`)).body.data as any[]));
    expect(journals.filter((events) => events.some((event) => event.type === "run-resumed")).length).toBeGreaterThanOrEqual(1);
    // nginx passed at least one request the dead replica refused on to another (proxy_next_upstream).
    expect(nginx.accessLog().some((entry) => /upstream=\S+, /.test(entry))).toBe(true);

    // Every stream: the whole journal, in order, without a gap, up to run-completed; one cut by the kill is resumed
    // through nginx with Last-Event-ID.
    let resumed = 0;
    for (const [i, id] of runIds.entries()) {
      const frames: SseFrame[] = [];
      let reader: SseReader = streams[i];
      for (let attempt = 0; ; attempt++) {
        await reader.waitFor(ended, 30_000).catch(() => {});
        reader.close();
        frames.push(...reader.frames);
        if (ended(frames) || attempt === 3) break;
        const lastId = frames.filter((frame) => frame.id !== undefined).at(-1)?.id;
        expect(lastId, `stream of run ${i} cut before its first event`).toBeDefined();
        resumed += 1;
        const response = await fetch(`${nginx.baseUrl}/v1/runs/${id}/stream`, { headers: { Authorization: `Bearer ${tenant.key}`, "Last-Event-ID": lastId! } });
        expect(response.status).toBe(200);
        reader = readSse(response);
      }
      const withIds = frames.filter((frame) => frame.id !== undefined);
      expect(withIds.map((frame) => frame.id)).toEqual(journals[i].map((event) => `${id}:${event.seq}`));
      expect(withIds.map((frame) => frame.data.seq)).toEqual(withIds.map((_, index) => index + 1));
      expect(withIds.at(-1)!.event).toBe("run-completed");
    }
    // The kill cut the streams that replica served (two of six, round robin).
    expect(resumed).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
