"use client";
import { useCallback, useEffect, useRef, useState } from "react";
import { useRouter } from "next/navigation";
import type { ApprovalStreamEvent } from "@/lib/client/approval-stream";

/** Where the choice is remembered in this browser: "on" or "off". */
export const NOTIFY_STORAGE_KEY = "kindgi.approvals.notify";

export type NotifyState = "unsupported" | "off" | "on" | "denied";

const supported = () => typeof window !== "undefined" && "Notification" in window;

function stored(): string | null {
  try {
    return window.localStorage.getItem(NOTIFY_STORAGE_KEY);
  } catch {
    return null;
  }
}

function store(value: "on" | "off") {
  try {
    window.localStorage.setItem(NOTIFY_STORAGE_KEY, value);
  } catch {
    // storage can be unavailable: the choice then lasts for this page
  }
}

/** The notification's title: what is asked, and by which agent. */
export function notificationTitle(approval: ApprovalStreamEvent["approval"]): string {
  const what = approval.kind === "session" ? "Next turn" : (approval.tool?.id ?? "A tool call");
  return `${what} · ${approval.agent?.id ?? "an agent"}`;
}

/**
 * Opt-in browser notifications of new approvals. Permission is asked only by `enable()` (a click); the choice is kept
 * in localStorage. While on, `notify(event)` shows a notification for each approval requested on the stream while this
 * tab is hidden or not focused; clicking it focuses the window and opens /approvals/{id}.
 */
export function useApprovalNotifications() {
  const router = useRouter();
  const [state, setState] = useState<NotifyState>("off");
  const stateRef = useRef(state);
  const seen = useRef(new Set<string>());
  useEffect(() => {
    stateRef.current = state;
  }, [state]);

  useEffect(() => {
    if (!supported()) setState("unsupported");
    else if (Notification.permission === "denied") setState("denied");
    else setState(stored() === "on" && Notification.permission === "granted" ? "on" : "off");
  }, []);

  const enable = useCallback(async () => {
    if (!supported()) return;
    // Asked on every click (a browser answers at once when it was decided before): never on its own.
    const permission = await Notification.requestPermission();
    if (permission === "granted") {
      store("on");
      setState("on");
    } else {
      store("off");
      setState(permission === "denied" ? "denied" : "off");
    }
  }, []);

  const disable = useCallback(() => {
    store("off");
    setState("off");
  }, []);

  const notify = useCallback(
    (event: ApprovalStreamEvent) => {
      if (event.type !== "approval.requested" || event.approval.status !== "pending" || stateRef.current !== "on" || !supported()) return;
      if (document.visibilityState === "visible" && document.hasFocus()) return;
      if (seen.current.has(event.approval.id)) return;
      seen.current.add(event.approval.id);
      const href = `/approvals/${event.approval.id}`;
      try {
        const notification = new Notification(notificationTitle(event.approval), { body: `Waits for a decision (run ${event.approval.runId.slice(0, 8)}).`, tag: `approval-${event.approval.id}` });
        notification.onclick = () => {
          window.focus();
          router.push(href);
          notification.close();
        };
      } catch {
        // a browser that only shows notifications from a service worker: nothing is shown
      }
    },
    [router],
  );

  return { state, enable, disable, notify };
}
