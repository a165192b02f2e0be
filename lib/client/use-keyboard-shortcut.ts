"use client";
import { useEffect, useRef } from "react";

/** True when the key event comes from a place that takes text (typing `/` there must not trigger a shortcut). */
export function isTypingTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") return !["checkbox", "radio", "button", "submit", "reset", "range", "color", "file"].includes((target as HTMLInputElement).type);
  return Boolean(target.closest("[role=textbox], .cm-editor"));
}

/**
 * Calls `handler` when `key` is pressed anywhere on the page. With `mod`, Ctrl (or ⌘ on a Mac) must be held and the
 * shortcut works while typing too (e.g. save); without it, keys typed into a field are ignored.
 */
export function useKeyboardShortcut(key: string, handler: (event: KeyboardEvent) => void, options: { mod?: boolean; enabled?: boolean } = {}) {
  const latest = useRef(handler);
  latest.current = handler;
  const { mod = false, enabled = true } = options;
  useEffect(() => {
    if (!enabled) return;
    const listener = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() !== key.toLowerCase() || event.altKey || event.isComposing) return;
      const modPressed = event.ctrlKey || event.metaKey;
      if (mod !== modPressed) return;
      if (!mod && isTypingTarget(event.target)) return;
      event.preventDefault();
      latest.current(event);
    };
    window.addEventListener("keydown", listener);
    return () => window.removeEventListener("keydown", listener);
  }, [key, mod, enabled]);
}

/** Ctrl+S / ⌘S calls `onSave` (editors use it). */
export function useSaveShortcut(onSave: () => void, enabled = true) {
  useKeyboardShortcut("s", onSave, { mod: true, enabled });
}
