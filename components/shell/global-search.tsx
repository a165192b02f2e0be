"use client";
import { useRouter, useSearchParams } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { Kbd } from "@/components/ui";
import { useKeyboardShortcut } from "@/lib/client/use-keyboard-shortcut";

/** The top bar's search: `/` focuses it; Enter opens the catalog filtered by the text. */
export function GlobalSearch() {
  const router = useRouter();
  const searchParams = useSearchParams();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState(searchParams?.get("q") ?? "");

  useEffect(() => setText(searchParams?.get("q") ?? ""), [searchParams]);
  useKeyboardShortcut("/", () => {
    input.current?.focus();
    input.current?.select();
  });

  return (
    <form
      role="search"
      aria-label="Console"
      className="relative w-full max-w-md"
      onSubmit={(event) => {
        event.preventDefault();
        const q = text.trim();
        router.push(q ? `/tools?q=${encodeURIComponent(q)}` : "/tools");
      }}
    >
      <label htmlFor="global-search" className="sr-only">
        Search
      </label>
      <svg aria-hidden="true" viewBox="0 0 20 20" className="pointer-events-none absolute top-1/2 left-2.5 h-4 w-4 -translate-y-1/2 text-zinc-500" fill="none" stroke="currentColor" strokeWidth="1.8">
        <circle cx="9" cy="9" r="5.5" />
        <path d="m13.5 13.5 3.5 3.5" strokeLinecap="round" />
      </svg>
      <input
        ref={input}
        id="global-search"
        type="search"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape") input.current?.blur();
        }}
        placeholder="Search tools…"
        aria-keyshortcuts="/"
        autoComplete="off"
        className="h-9 w-full rounded-md border border-zinc-300 bg-white pr-9 pl-8 text-sm text-zinc-900 placeholder:text-zinc-500 focus-visible:border-indigo-600 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-indigo-600 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 dark:placeholder:text-zinc-400"
      />
      <Kbd className="absolute top-1/2 right-2 -translate-y-1/2" aria-hidden="true">
        /
      </Kbd>
    </form>
  );
}
