import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendJson, startRecordingServer, type RecordingServer } from "./invokers/testing/recording-server";
import { checkDestination, type HostResolver } from "./network-policy";
import { AgentPool, pinnedFetch } from "./pinned-fetch";

let server: RecordingServer;

beforeAll(async () => {
  server = await startRecordingServer(async (request, response) => {
    if (request.url === "/moved") return void response.writeHead(302, { location: "/elsewhere" }).end();
    if (request.url === "/empty") return void response.writeHead(204).end();
    if (request.url === "/slow") return void setTimeout(() => sendJson(response, 200, {}), 5_000);
    if (request.url === "/stream") {
      response.writeHead(200, { "content-type": "text/event-stream", "set-cookie": ["a=1", "b=2"] });
      response.write("data: one\n\n");
      return void setTimeout(() => response.end("data: two\n\n"), 50);
    }
    sendJson(response, 200, request);
  });
});

afterAll(async () => {
  await server.close();
});

/** A name only this resolver knows; every check asks it once. */
function pinnedTo(address: string) {
  const asked: string[] = [];
  const lookup: HostResolver = async (hostname) => {
    asked.push(hostname);
    return [{ address, family: 4 }];
  };
  const check = (url: URL) => checkDestination(url, { kind: "allowlist", hosts: [url.host] }, { lookup });
  return { asked, check };
}

describe("pinnedFetch", () => {
  it("connects to the checked address with the URL's host name in Host, and sends method, headers and body", async () => {
    const { asked, check } = pinnedTo("127.0.0.1");
    const pinned = pinnedFetch(check);
    try {
      const response = await pinned.fetch(`http://only-here.test:${server.port}/items?x=1`, { method: "POST", headers: { "content-type": "application/json", "x-token": "t" }, body: JSON.stringify({ a: 1 }) });
      expect(response.status).toBe(200);
      const echoed = (await response.json()) as { method: string; url: string; headers: Record<string, string>; body: string };
      expect(echoed).toMatchObject({ method: "POST", url: "/items?x=1", body: '{"a":1}', headers: { host: `only-here.test:${server.port}`, "x-token": "t", "content-type": "application/json", "content-length": "7" } });
      // A second request is checked again: one lookup each.
      await (await pinned.fetch(new Request(`http://only-here.test:${server.port}/again`))).text();
      expect(asked).toEqual(["only-here.test", "only-here.test"]);
    } finally {
      pinned.close();
    }
  });

  it("refuses what the check refuses, before connecting", async () => {
    const before = server.requests.length;
    const unrestricted = (url: URL) => checkDestination(url, { kind: "unrestricted" }, { lookup: async () => [{ address: "127.0.0.1", family: 4 }] });
    await expect(pinnedFetch(unrestricted).fetch(`http://loop.test:${server.port}/`)).rejects.toThrow(/127\.0\.0\.1 is a loopback address/);
    expect(server.requests.length).toBe(before);
  });

  it("hands back a redirect when asked to (manual), and refuses to follow one otherwise", async () => {
    const pinned = pinnedFetch(pinnedTo("127.0.0.1").check);
    try {
      const manual = await pinned.fetch(`http://r.test:${server.port}/moved`, { redirect: "manual" });
      expect(manual.status).toBe(302);
      expect(manual.headers.get("location")).toBe("/elsewhere");
      await expect(pinned.fetch(`http://r.test:${server.port}/moved`)).rejects.toThrow(/answered 302 \(a redirect\)/);
      expect(server.requests.filter((request) => request.url === "/elsewhere")).toHaveLength(0);
    } finally {
      pinned.close();
    }
  });

  it("streams a response body as it arrives, keeps repeated headers, and gives an empty body for 204", async () => {
    const pinned = pinnedFetch(pinnedTo("127.0.0.1").check);
    try {
      const stream = await pinned.fetch(`http://s.test:${server.port}/stream`);
      expect(stream.headers.get("content-type")).toBe("text/event-stream");
      expect(stream.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
      const reader = stream.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toBe("data: one\n\n");
      let rest = "";
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
      expect(rest).toBe("data: two\n\n");
      const empty = await pinned.fetch(`http://s.test:${server.port}/empty`, { method: "DELETE" });
      expect(empty.status).toBe(204);
      expect(await empty.text()).toBe("");
    } finally {
      pinned.close();
    }
  });

  it("rejects with the signal's reason when the caller aborts", async () => {
    const pinned = pinnedFetch(pinnedTo("127.0.0.1").check);
    try {
      const controller = new AbortController();
      const pending = pinned.fetch(`http://a.test:${server.port}/slow`, { signal: controller.signal });
      setTimeout(() => controller.abort(new Error("stop now")), 50);
      await expect(pending).rejects.toThrow("stop now");
    } finally {
      pinned.close();
    }
  });

  it("keeps one agent per checked address, and closes the least recently used past its limit", () => {
    const pool = new AgentPool(2);
    const url = new URL("http://pool.test/");
    const at = (address: string) => ({ hostname: "pool.test", port: 80, address, family: 4 as const });
    try {
      const first = pool.agentFor(url, at("10.0.0.1"));
      expect(pool.agentFor(url, at("10.0.0.1"))).toBe(first);
      const second = pool.agentFor(url, at("10.0.0.2"));
      expect(second).not.toBe(first);
      expect(pool.agentFor(url, at("10.0.0.1"))).toBe(first); // now the most recently used
      pool.agentFor(url, at("10.0.0.3"));
      expect(pool.agentFor(url, at("10.0.0.1"))).toBe(first);
      expect(pool.agentFor(url, at("10.0.0.2"))).not.toBe(second);
    } finally {
      pool.close();
    }
  });

  it("lets a request in flight on an agent past the limit finish, then closes its connection", async () => {
    const pool = new AgentPool(1);
    const { check } = pinnedTo("127.0.0.1");
    const pinned = pinnedFetch(check, pool);
    const local = (hostname: string) => ({ hostname, port: server.port, address: "127.0.0.1", family: 4 as const });
    try {
      const streaming = await pinned.fetch(`http://first.test:${server.port}/stream`);
      const first = pool.agentFor(new URL(`http://first.test:${server.port}/`), local("first.test"));
      expect(Object.values(first.sockets).flat()).toHaveLength(1);
      // Another address takes the only place: the first agent is retired while its event stream is still open.
      pool.agentFor(new URL(`http://second.test:${server.port}/`), local("second.test"));
      expect(await streaming.text()).toBe("data: one\n\ndata: two\n\n");
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(Object.values(first.sockets).flat()).toHaveLength(0);
      expect(Object.values(first.freeSockets).flat()).toHaveLength(0);
      // A pooled agent keeps its connection for the next request.
      const kept = await pinned.fetch(`http://second.test:${server.port}/items`);
      await kept.text();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = pool.agentFor(new URL(`http://second.test:${server.port}/`), local("second.test"));
      expect(Object.values(second.freeSockets).flat()).toHaveLength(1);
    } finally {
      pool.close();
    }
  });
});
