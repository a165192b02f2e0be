import { EventEmitter } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { LocalBus } from "@/lib/services/event-bus";
import { BUS_CHANNEL, MAX_PAYLOAD_BYTES, PostgresBus, jsonCharBytes, mergeDeltas, splitDelta, type BusClient, type BusDelta } from "@/lib/services/event-bus-postgres";

/** A PostgreSQL server's notifications, in memory: what one client sends, every client listening hears, in order. */
class FakeServer {
  readonly listeners = new Set<FakeClient>();
  readonly statements: { client: FakeClient; payloads: string[] }[] = [];
  readonly clients: FakeClient[] = [];
  createClient = (): BusClient => {
    const client = new FakeClient(this);
    this.clients.push(client);
    return client;
  };
}

class FakeClient extends EventEmitter {
  connected = false;
  constructor(private readonly server: FakeServer) {
    super();
  }
  async connect() {
    this.connected = true;
  }
  async query(query: string | { text: string; values?: unknown[] }) {
    if (!this.connected) throw new Error("not connected");
    const text = typeof query === "string" ? query : query.text;
    if (text.startsWith("LISTEN ")) {
      this.server.listeners.add(this);
      return {};
    }
    const [channel, payloads] = (query as unknown as { values: [string, string[]] }).values;
    for (const payload of payloads) if (Buffer.byteLength(payload) >= 8000) throw new Error("payload string too long");
    this.server.statements.push({ client: this, payloads });
    // PostgreSQL delivers a transaction's notifications after its commit, a statement's in order.
    setImmediate(() => {
      for (const listener of this.server.listeners) for (const payload of payloads) listener.emit("notification", { channel, payload });
    });
    return {};
  }
  async end() {
    this.server.listeners.delete(this);
    this.connected = false;
  }
  /** The connection dies (a terminated backend). */
  drop() {
    this.server.listeners.delete(this);
    this.connected = false;
    this.emit("error", new Error("terminating connection due to administrator command"));
    this.emit("end");
  }
}

const buses: PostgresBus[] = [];
function newBus(server: FakeServer, options: { local?: LocalBus; windowMs?: number } = {}) {
  const bus = new PostgresBus({ createClient: server.createClient, log: () => {}, ...options });
  buses.push(bus);
  return bus;
}

afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));
const decode = (payload: string) => JSON.parse(payload) as [string, number, string, unknown?];
const delta = (extra: Partial<BusDelta> = {}): BusDelta => ({ callIndex: 0, attempt: 1, ...extra });

describe("the size of a character in a payload", () => {
  it("is what JSON.stringify writes for it, in UTF-8 bytes", () => {
    const samples = ["a", "\"", "\\", "\n", "\t", "\u0001", "\u001f", "é", "ß", "€", "中", "\u2028", "😀", "👍🏽", "\ud800", "\udfff", "\u0000", "~", "\u007f", "\u0800", "\uffff"];
    for (const sample of samples) for (const char of sample) expect(jsonCharBytes(char), JSON.stringify(char)).toBe(Buffer.byteLength(JSON.stringify(char)) - 2);
  });
});

describe("merging deltas", () => {
  it("concatenates text, and each tool call's arguments by index, keeping the order of first appearance", () => {
    const first = delta({ text: "Hel", toolCalls: [{ index: 0, id: "c0", name: "lookup", argumentsDelta: "{\"wo" }] });
    const second = delta({ text: "lo", toolCalls: [{ index: 1, id: "c1", name: "other", argumentsDelta: "{" }, { index: 0, argumentsDelta: "rd\":1}" }] });
    const merged = mergeDeltas(first, second);
    expect(merged).toEqual(delta({ text: "Hello", toolCalls: [{ index: 0, id: "c0", name: "lookup", argumentsDelta: "{\"word\":1}" }, { index: 1, id: "c1", name: "other", argumentsDelta: "{" }] }));
    // Neither input changed (this process's subscribers hold them).
    expect(first).toEqual(delta({ text: "Hel", toolCalls: [{ index: 0, id: "c0", name: "lookup", argumentsDelta: "{\"wo" }] }));
    expect(second.toolCalls).toHaveLength(2);
  });
});

describe("splitting a delta under the payload limit", () => {
  const sizeOf = (piece: BusDelta) => Buffer.byteLength(JSON.stringify(["origin", 9007199254740991, "delta:run", piece]));
  const joined = (pieces: BusDelta[]) => pieces.reduce((all, piece) => mergeDeltas(all, piece));

  it("leaves a delta that fits as it is", () => {
    const small = delta({ text: "hi" });
    expect(splitDelta(small, sizeOf, MAX_PAYLOAD_BYTES)).toEqual([small]);
  });

  it("splits long multi-byte text between characters, never inside a surrogate pair, each piece under the limit", () => {
    // 2-, 3- and 4-byte characters, escapes, and lone surrogates (6 bytes each as JSON).
    const unit = "aé中😀\"\\\n\u0001👍🏽\ud800z";
    const text = unit.repeat(3000);
    const pieces = splitDelta(delta({ text }), sizeOf, MAX_PAYLOAD_BYTES)!;
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) {
      expect(sizeOf(piece)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
      // Nearly full: split where the limit is, not early.
      if (piece !== pieces.at(-1)) expect(sizeOf(piece)).toBeGreaterThan(MAX_PAYLOAD_BYTES - 8);
    }
    // No piece ends with the high half of a pair whose low half starts the next.
    const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
    const isLow = (code: number) => code >= 0xdc00 && code <= 0xdfff;
    for (let i = 1; i < pieces.length; i++) expect(isHigh(pieces[i - 1].text!.charCodeAt(pieces[i - 1].text!.length - 1)) && isLow(pieces[i].text!.charCodeAt(0))).toBe(false);
    expect(pieces.map((piece) => piece.text).join("")).toBe(text);
  });

  it("splits tool calls' arguments, naming each call (id, name) in its first piece only", () => {
    const args = JSON.stringify({ note: "ü".repeat(9000) });
    const original = delta({ text: "x".repeat(7000), toolCalls: [{ index: 0, id: "call-0", name: "write", argumentsDelta: args }, { index: 1, id: "call-1", name: "empty", argumentsDelta: "" }] });
    const pieces = splitDelta(original, sizeOf, MAX_PAYLOAD_BYTES)!;
    for (const piece of pieces) expect(sizeOf(piece)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(joined(pieces)).toEqual(original);
    const named = pieces.flatMap((piece) => piece.toolCalls ?? []).filter((call) => call.name !== undefined);
    expect(named.map((call) => call.id)).toEqual(["call-0", "call-1"]);
  });

  it("answers null when a tool call's name alone is over the limit", () => {
    expect(splitDelta(delta({ toolCalls: [{ index: 0, name: "n".repeat(9000), argumentsDelta: "" }] }), sizeOf, MAX_PAYLOAD_BYTES)).toBeNull();
  });
});

describe("the PostgreSQL transport", () => {
  it("delivers to this process's subscribers at once, and to another process's through the database", async () => {
    const server = new FakeServer();
    const a = newBus(server);
    const b = newBus(server);
    await Promise.all([a.ready, b.ready]);
    const heardA: unknown[] = [];
    const heardB: unknown[] = [];
    a.subscribe("approvals:t1", (message) => heardA.push(message));
    b.subscribe("approvals:t1", (message) => heardB.push(message));
    a.publish("approvals:t1", { seq: 1 });
    expect(heardA).toEqual([{ seq: 1 }]);
    expect(heardB).toEqual([]);
    await vi.waitFor(() => expect(heardB).toEqual([{ seq: 1 }]));
    // A heard its own notification back from the database, and did not deliver it twice.
    await settle();
    expect(heardA).toEqual([{ seq: 1 }]);
  });

  it("sends a burst in one statement: consecutive deltas of one call and attempt merged, identical messages once, order kept", async () => {
    const server = new FakeServer();
    const a = newBus(server, { windowMs: 5 });
    const b = newBus(server);
    await Promise.all([a.ready, b.ready]);
    const heard: unknown[] = [];
    b.subscribe("delta:r1", (message) => heard.push(message));
    b.subscribe("run:r1", (message) => heard.push(message));
    a.publish("delta:r1", delta({ text: "Hel" }));
    a.publish("run:r1", { lastSeq: 3 });
    a.publish("delta:r1", delta({ text: "lo" }));
    a.publish("run:r1", { lastSeq: 3 });
    a.publish("delta:r1", delta({ text: "!", attempt: 2 }));
    a.publish("delta:r1", delta({ text: " again", attempt: 2 }));
    await vi.waitFor(() => expect(heard).toHaveLength(4));
    const sent = server.statements.filter((statement) => statement.client !== server.clients[1]);
    expect(sent).toHaveLength(1);
    expect(sent[0].payloads).toHaveLength(4);
    // A delta published after an announcement is not merged into one before it: the order stays as published.
    expect(heard).toEqual([delta({ text: "Hel" }), { lastSeq: 3 }, delta({ text: "lo" }), delta({ text: "! again", attempt: 2 })]);
  });

  it("sends a delta too large for one notification as several, all under 8000 bytes, that join to the original", async () => {
    const server = new FakeServer();
    const a = newBus(server);
    const b = newBus(server);
    await Promise.all([a.ready, b.ready]);
    const heard: BusDelta[] = [];
    b.subscribe("delta:big", (message) => heard.push(message as BusDelta));
    const text = "Grüße aus 東京 😀 ".repeat(2000);
    a.publish("delta:big", delta({ text: text.slice(0, 10_000) }));
    a.publish("delta:big", delta({ text: text.slice(10_000) }));
    await vi.waitFor(() => expect(heard.map((piece) => piece.text).join("")).toBe(text));
    const payloads = server.statements.flatMap((statement) => statement.payloads);
    expect(payloads.length).toBeGreaterThan(4);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
  });

  it("tells the other processes of a loss on the topic when a message is too large to be a notification", async () => {
    const server = new FakeServer();
    const a = newBus(server);
    const b = newBus(server);
    await Promise.all([a.ready, b.ready]);
    const heard: unknown[] = [];
    b.subscribe("run:r2", (message) => heard.push(message));
    a.publish("run:r2", { padding: "x".repeat(9000) });
    await vi.waitFor(() => expect(heard).toEqual([null]));
  });

  it("does not decode what no subscriber of this process hears", async () => {
    const server = new FakeServer();
    const a = newBus(server);
    const local = new LocalBus();
    const deliver = vi.spyOn(local, "deliver");
    newBus(server, { local });
    await settle();
    a.publish("delta:nobody-watches", delta({ text: "x" }));
    await settle();
    expect(deliver).not.toHaveBeenCalled();
  });

  it("after its listening connection drops, reconnects, listens again, tells every subscriber of a possible loss (null) and delivers again", async () => {
    const server = new FakeServer();
    const a = newBus(server);
    const b = newBus(server);
    await Promise.all([a.ready, b.ready]);
    const heard: unknown[] = [];
    const other: unknown[] = [];
    b.subscribe("approvals:t1", (message) => heard.push(message));
    b.subscribe("generation", (message) => other.push(message));
    const listening = server.clients[1] as unknown as FakeClient;
    listening.drop();
    expect(b.listening).toBe(false);
    // Published while B is not listening: B never hears it, and learns of the loss instead.
    a.publish("approvals:t1", { seq: 7 });
    await vi.waitFor(() => expect(heard).toEqual([null]), { timeout: 2000 });
    expect(other).toEqual([null]);
    expect(b.listening).toBe(true);
    expect(server.clients).toHaveLength(3);
    a.publish("approvals:t1", { seq: 8 });
    await vi.waitFor(() => expect(heard).toEqual([null, { seq: 8 }]));
  });

  it("sends on a pooled connection while its own is down", async () => {
    const server = new FakeServer();
    const sent: string[][] = [];
    const a = new PostgresBus({ createClient: server.createClient, log: () => {}, fallbackSend: async (channel, payloads) => void sent.push([channel, ...payloads]) });
    buses.push(a);
    await a.ready;
    (server.clients[0] as unknown as FakeClient).drop();
    a.publish("approvals:t1", { seq: 1 });
    await vi.waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0][0]).toBe(BUS_CHANNEL);
    expect(decode(sent[0][1]).slice(2)).toEqual(["approvals:t1", { seq: 1 }]);
  });

  it("keeps the subscribers of the in-process bus it is given", async () => {
    const local = new LocalBus();
    const heard: unknown[] = [];
    local.subscribe("approvals:t1", (message) => heard.push(message));
    const server = new FakeServer();
    const a = newBus(server);
    newBus(server, { local });
    await settle();
    a.publish("approvals:t1", { seq: 2 });
    await vi.waitFor(() => expect(heard).toEqual([{ seq: 2 }]));
  });
});
