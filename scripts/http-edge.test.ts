import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { errorStatus } from "@/lib/errors";
import { MAX_BODY_BYTES as API_MAX_BODY_BYTES } from "@/lib/api/limits";
import { CONSOLE_PATH_HEADER as PAGE_HEADER } from "@/lib/client/console-path";
import { allowedMethods } from "@/lib/api/method-table";
import { httpRequest } from "@/tests/helpers/raw-http";
import { CONSOLE_PATH_HEADER, MAX_BODY_BYTES, OneWriteResponse, apiAnswer, clientErrorAnswer, malformedQueryAnswer, methodAnswer, pagePath } from "./http-edge.mjs";

type Answer = { status: number; code: string; message: string; headers?: Record<string, string>; details?: { allow: string[] } };
const table = (path: string) => (path === "/v1/tools" ? ["GET", "HEAD", "POST"] : path === "/health" ? ["GET", "HEAD"] : null);
const parserError = (code: string, raw = "") => Object.assign(new Error(code), { code, rawPacket: Buffer.from(raw, "latin1") });

describe("the HTTP front's answers", () => {
  it("answers a method that never reaches the app with 405 and the path's Allow, or 404 for an unknown API path", () => {
    const trace: Answer = methodAnswer("TRACE", "/v1/tools?x=1", table);
    expect(trace).toMatchObject({ status: 405, code: "method-not-allowed", headers: { Allow: "GET, HEAD, POST" }, details: { allow: ["GET", "HEAD", "POST"] } });
    expect(methodAnswer("TRACE", "/v1/nope", table)).toMatchObject({ status: 404, code: "not-found" });
    expect(methodAnswer("TRACE", "/", table)).toMatchObject({ status: 405, headers: { Allow: "GET, HEAD" } });
  });

  it("turns parser refusals into answers: an odd-cased method is a 405 that names the right spelling", () => {
    const lower: Answer = clientErrorAnswer(parserError("HPE_INVALID_METHOD", "get /v1/tools HTTP/1.1\r\nHost: x\r\n\r\n"), table);
    expect(lower).toMatchObject({ status: 405, code: "method-not-allowed", headers: { Allow: "GET, HEAD, POST" } });
    expect(lower.message).toContain("case-sensitive: GET");
    expect(clientErrorAnswer(parserError("HPE_INVALID_METHOD", "FOO /health HTTP/1.1\r\n\r\n"), table)).toMatchObject({ status: 405, headers: { Allow: "GET, HEAD" } });
    expect(clientErrorAnswer(parserError("HPE_HEADER_OVERFLOW"), table)).toMatchObject({ status: 431, code: "headers-too-large" });
    expect(clientErrorAnswer(parserError("ERR_HTTP_REQUEST_TIMEOUT"), table)).toMatchObject({ status: 408, code: "request-timeout" });
    expect(clientErrorAnswer(parserError("HPE_INVALID_HEADER_TOKEN", "GET / HTTP/1.1\r\nBad Header\r\n\r\n"), table)).toMatchObject({ status: 400, code: "bad-input" });
  });

  it("answers on an API path, before Next.js: bad path encoding, a method the path does not serve, OPTIONS; passes the rest", () => {
    expect(apiAnswer("GET", "/v1/tools/%zz", table)).toMatchObject({ status: 400, code: "bad-input", details: { issues: [{ path: "/path", message: "segment 3 is not valid percent-encoded UTF-8" }] } });
    expect(apiAnswer("GET", "/v1/tools/%E0%A4%A?limit=1", table)).toMatchObject({ status: 400, code: "bad-input" });
    expect(apiAnswer("DELETE", "/v1/tools", table)).toMatchObject({ status: 405, code: "method-not-allowed", headers: { Allow: "GET, HEAD, POST" }, details: { allow: ["GET", "HEAD", "POST"] } });
    expect(apiAnswer("PROPFIND", "/v1/tools", table)).toMatchObject({ status: 405, code: "method-not-allowed" });
    expect(apiAnswer("OPTIONS", "/v1/tools?x=1", table)).toEqual({ status: 204, headers: { Allow: "GET, HEAD, OPTIONS, POST" } });
    expect(apiAnswer("OPTIONS", "/v1/nope", table)).toMatchObject({ status: 404, code: "not-found" });
    expect(apiAnswer("PROPFIND", "/v1/nope", table)).toMatchObject({ status: 404, code: "not-found" });
    // Served methods, and routed methods at unknown API paths (the catch-all answers those), pass; so does a page.
    expect(apiAnswer("GET", "/v1/tools?q=%C3%A9", table)).toBeNull();
    expect(apiAnswer("HEAD", "/v1/tools", table)).toBeNull();
    expect(apiAnswer("POST", "/v1/nope", table)).toBeNull();
    expect(apiAnswer("PROPFIND", "/tools", table)).toBeNull();
  });

  it("answers /health as an API path, and only /v1 and /health (with or without a query) are such paths", () => {
    expect(apiAnswer("DELETE", "/health", table)).toMatchObject({ status: 405, code: "method-not-allowed", headers: { Allow: "GET, HEAD" } });
    expect(apiAnswer("OPTIONS", "/health?x=1", table)).toEqual({ status: 204, headers: { Allow: "GET, HEAD, OPTIONS" } });
    expect(apiAnswer("GET", "/health", table)).toBeNull();
    expect(apiAnswer("PROPFIND", "/v1", table)).toMatchObject({ status: 404, code: "not-found" });
    for (const page of ["/healthy", "/health/", "/v1x", "/v10/tools", "/tools/v1", "/metricsx", "/health/readyx"]) expect(apiAnswer("PROPFIND", page, table)).toBeNull();
  });

  it("answers /health/ready and /metrics as API paths", () => {
    const lookup = (path: string) => (path === "/health/ready" || path === "/metrics" ? ["GET", "HEAD"] : null);
    for (const path of ["/health/ready", "/metrics", "/metrics?x=1"]) {
      expect(apiAnswer("DELETE", path, lookup)).toMatchObject({ status: 405, code: "method-not-allowed", headers: { Allow: "GET, HEAD" } });
      expect(apiAnswer("GET", path, lookup)).toBeNull();
    }
  });

  it("hands a page request's path and query to the layouts under the header they read", () => {
    expect(CONSOLE_PATH_HEADER).toBe(PAGE_HEADER);
    expect(pagePath("/tools?q=a%20b")).toBe("/tools?q=a%20b");
    expect(pagePath("http://kindgi.test:3000/approvals/1?x=2")).toBe("/approvals/1?x=2");
    expect(pagePath("*")).toBe("/");
  });

  it("the API's method table: a path without parameters wins over a template, a trailing slash is the same path", () => {
    expect(allowedMethods("/v1/agents/validate")).toEqual(["POST"]);
    expect(allowedMethods("/v1/tools/")).toEqual(allowedMethods("/v1/tools"));
    expect(allowedMethods("/v1/tools")).toEqual(["GET", "HEAD", "POST"]);
    expect(allowedMethods("/health")).toEqual(["GET", "HEAD"]);
    expect(allowedMethods("/health/ready")).toEqual(["GET", "HEAD"]);
    expect(allowedMethods("/metrics")).toEqual(["GET", "HEAD"]);
    expect(allowedMethods("/v1/runs/0b6c1e2a-3f4d-4e5f-8a9b-0c1d2e3f4a5b")).toContain("GET");
    expect(allowedMethods("/v1/no-such-route")).toBeNull();
    expect(Object.isFrozen(allowedMethods("/v1/tools"))).toBe(true);
  });

  it("uses only codes of the one table, with the table's status", () => {
    const answers: Answer[] = [
      methodAnswer("TRACE", "/v1/tools", table),
      methodAnswer("CONNECT", "example.test:443", table),
      methodAnswer("TRACE", "/v1/nope", table),
      ...["HPE_HEADER_OVERFLOW", "ERR_HTTP_REQUEST_TIMEOUT", "HPE_INVALID_METHOD", "HPE_INVALID_CONSTANT"].map((code) => clientErrorAnswer(parserError(code, "bad"), table)),
    ];
    for (const answer of answers) expect(errorStatus[answer.code as keyof typeof errorStatus]).toBe(answer.status);
  });

  it("refuses an API query that does not decode strictly, naming the parameter", () => {
    expect(malformedQueryAnswer("/v1/tools?limit=1&q=%ED%A0%80")).toMatchObject({ status: 400, code: "bad-input", details: { issues: [{ path: "/q", message: "not valid percent-encoded UTF-8" }] } });
    expect(malformedQueryAnswer("/v1/tools?q=%zz")).toMatchObject({ status: 400, code: "bad-input" });
    expect(malformedQueryAnswer("/v1/tools?q=caf%C3%A9+cr%C3%A8me&limit=5")).toBeNull();
    expect(malformedQueryAnswer("/v1/tools")).toBeNull();
    expect(malformedQueryAnswer("/catalog?q=%zz")).toBeNull();
  });

  it("caps bodies at the API's limit", () => {
    expect(MAX_BODY_BYTES).toBe(API_MAX_BODY_BYTES);
  });
});

/**
 * A server made the way Next.js makes its own (`http.createServer([options,] listener)`, which the HTTP front wraps),
 * counting the writes each connection's socket makes (a write, or a corked batch of them, is one system call).
 */
async function countingServer(listener: http.RequestListener, options?: http.ServerOptions) {
  const server = options ? http.createServer(options, listener) : http.createServer(listener);
  const writes: number[] = [];
  server.on("connection", (socket: Socket & { _write: (...args: unknown[]) => unknown; _writev: (...args: unknown[]) => unknown }) => {
    const index = writes.push(0) - 1;
    const write = socket._write;
    const writev = socket._writev;
    socket._write = function (...args) {
      writes[index] += 1;
      return write.apply(this, args);
    };
    socket._writev = function (...args) {
      writes[index] += 1;
      return writev.apply(this, args);
    };
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, writes, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("the HTTP front's responses", () => {
  it("send the head with the first chunk, in one write, when Next.js flushes the headers first", async () => {
    const headersSent: boolean[] = [];
    const server = await countingServer((request, response) => {
      response.setHeader("Content-Type", "application/json; charset=utf-8");
      response.setHeader("X-Request-Id", "r-1");
      // What Next.js's pipeToNodeResponse does with a route's answer: flush the headers, then write the chunk.
      response.flushHeaders();
      headersSent.push(response.headersSent);
      response.write('{"ok":');
      headersSent.push(response.headersSent);
      response.end("true}");
    });
    try {
      const answer = await httpRequest(server.url, "GET", "/catalog");
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(answer.headers["x-request-id"]).toBe("r-1");
      expect(answer.text).toBe('{"ok":true}');
      expect(headersSent).toEqual([false, true]);
      // Without OneWriteResponse, Node.js writes the head on its own, then the body: two.
      expect(server.writes).toEqual([1]);
    } finally {
      await server.close();
    }
  });

  it("hold nothing back: a streamed chunk arrives before the next one is written, a response without a body still ends", async () => {
    const server = await countingServer((request, response) => {
      response.setHeader("Content-Type", "text/event-stream");
      if (request.url === "/empty") {
        response.statusCode = 204;
        response.flushHeaders();
        return response.end();
      }
      response.flushHeaders();
      response.write("data: one\n\n");
      setTimeout(() => response.end("data: two\n\n"), 300);
    });
    try {
      const answer = await httpRequest(server.url, "GET", "/stream");
      expect(answer.status).toBe(200);
      expect(answer.chunks!.map((chunk) => chunk.text)).toEqual(["data: one\n\n", "data: two\n\n"]);
      expect(answer.chunks![0].at).toBeLessThan(250);
      expect(answer.chunks![1].at).toBeGreaterThanOrEqual(290);
      const empty = await httpRequest(server.url, "GET", "/empty");
      expect(empty.status).toBe(204);
      expect(empty.chunks).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it("are the server's responses, whatever options Next.js passes", async () => {
    const kinds: boolean[] = [];
    const listener: http.RequestListener = (request, response) => {
      kinds.push(response instanceof OneWriteResponse);
      response.end();
    };
    const plain = await countingServer(listener);
    const withOptions = await countingServer(listener, { keepAliveTimeout: 1000 });
    for (const server of [plain, withOptions]) {
      try {
        await httpRequest(server.url, "GET", "/catalog");
      } finally {
        await server.close();
      }
    }
    expect(kinds).toEqual([true, true]);
    expect(withOptions.server.keepAliveTimeout).toBe(1000);
  });
});
