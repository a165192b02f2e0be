import type { ReactNode } from "react";
import { cn } from "@/components/ui/cn";

/** What to do when there is nothing yet: a title, a sentence (or a `curl`) and optionally the button that does it. */
export function EmptyState({ title, children, action, className }: { title: string; children?: ReactNode; action?: ReactNode; className?: string }) {
  return (
    <div className={cn("rounded-lg border border-dashed border-zinc-300 px-6 py-10 text-center dark:border-zinc-700", className)}>
      <h2 className="text-base font-semibold text-zinc-900 dark:text-zinc-100">{title}</h2>
      {children && <div className="mx-auto mt-2 max-w-xl text-sm text-zinc-600 dark:text-zinc-400">{children}</div>}
      {action && <div className="mt-4 flex justify-center">{action}</div>}
    </div>
  );
}
