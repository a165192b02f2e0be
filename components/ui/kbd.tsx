import type { HTMLAttributes } from "react";
import { cn } from "@/components/ui/cn";

/** A key as printed on the keyboard, e.g. <Kbd>/</Kbd>. */
export function Kbd({ className, ...props }: HTMLAttributes<HTMLElement>) {
  return <kbd className={cn("inline-flex h-5 min-w-5 items-center justify-center rounded border border-zinc-300 bg-zinc-50 px-1 font-mono text-[11px] font-medium text-zinc-700 dark:border-zinc-600 dark:bg-zinc-800 dark:text-zinc-300", className)} {...props} />;
}
