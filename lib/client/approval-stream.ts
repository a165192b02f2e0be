/**
 * One follower of GET /v1/approvals/stream per query client, shared by every component that listens (the navigation's
 * badge, the inbox, an approval's page): it opens with the first listener and closes with the last. Each requested or
 * decided approval refreshes the approval queries once, then reaches every listener; so does each (re)connection.
 */
import type { QueryClient } from "@tanstack/react-query";
import { followStream, type StreamHandle } from "@/lib/client/sse";
import type { Approval } from "@/lib/client/use-approvals";

export type ApprovalStreamEvent = { type: "approval.requested" | "approval.decided"; approval: Approval };
export type ApprovalStreamListener = { onEvent?(event: ApprovalStreamEvent): void; onLive?(live: boolean): void };

type Shared = { handle: StreamHandle; live: boolean; listeners: Set<ApprovalStreamListener> };
const streams = new WeakMap<QueryClient, Shared>();

export function subscribeApprovalStream(client: QueryClient, listener: ApprovalStreamListener): () => void {
  let shared = streams.get(client);
  if (!shared) {
    const created: Shared = { handle: { close() {} }, live: false, listeners: new Set() };
    const setLive = (live: boolean) => {
      // Connected (again): what changed before this connection started, or during a gap a resume cannot cover, is
      // fetched once.
      if (live && !created.live) void client.invalidateQueries({ queryKey: ["approvals", "list"] });
      created.live = live;
      for (const each of created.listeners) each.onLive?.(live);
    };
    created.handle = followStream("/v1/approvals/stream", {
      onEvent(message) {
        if (message.event !== "approval.requested" && message.event !== "approval.decided") return;
        let approval: Approval | undefined;
        try {
          approval = (JSON.parse(message.data) as { approval?: Approval }).approval;
        } catch {
          // a malformed event only refreshes the lists
        }
        if (approval) client.setQueryData(["approvals", "detail", approval.id], approval);
        void client.invalidateQueries({ queryKey: ["approvals", "list"] });
        if (approval) for (const each of created.listeners) each.onEvent?.({ type: message.event, approval });
      },
      isLast: () => false,
      onConnected: setLive,
      onError: () => setLive(false),
    });
    streams.set(client, created);
    shared = created;
  }
  const current = shared;
  current.listeners.add(listener);
  listener.onLive?.(current.live);
  return () => {
    current.listeners.delete(listener);
    if (current.listeners.size === 0) {
      current.handle.close();
      if (streams.get(client) === current) streams.delete(client);
    }
  };
}
