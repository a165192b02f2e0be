"use client";
import type { ReactNode } from "react";
import { isApiError } from "@/lib/client/api";
import { cn } from "@/components/ui/cn";

/** An error in words: the API's message, its code and the request id to quote (nothing when `error` is null). */
export function ErrorBanner({ error, title, action, className }: { error: unknown; title?: string; action?: ReactNode; className?: string }) {
  if (error === null || error === undefined || error === false) return null;
  const apiError = isApiError(error) ? error : null;
  const message = apiError?.message ?? (error instanceof Error ? error.message : String(error));
  return (
    <div role="alert" className={cn("flex items-start gap-3 rounded-md border border-red-300 bg-red-50 px-4 py-3 text-sm text-red-900 dark:border-red-800 dark:bg-red-950 dark:text-red-100", className)}>
      <svg aria-hidden="true" viewBox="0 0 20 20" className="mt-0.5 h-4 w-4 shrink-0 fill-current">
        <path d="M10 1.5a8.5 8.5 0 1 0 0 17 8.5 8.5 0 0 0 0-17Zm-.9 4h1.8v6h-1.8v-6Zm0 7.5h1.8v1.8h-1.8V13Z" />
      </svg>
      <div className="min-w-0 flex-1">
        <p className="font-medium">{title ?? "Something went wrong"}</p>
        <p className="mt-0.5 break-words">{message}</p>
        {apiError && (
          <p className="mt-1 font-mono text-xs text-red-800 dark:text-red-200">
            {apiError.code}
            {apiError.status ? ` · HTTP ${apiError.status}` : ""}
            {apiError.requestId ? ` · request ${apiError.requestId}` : ""}
          </p>
        )}
      </div>
      {action}
    </div>
  );
}
