"use client";
import * as TooltipPrimitive from "@radix-ui/react-tooltip";
import type { ReactNode } from "react";

/** Once, around the app: tooltips share one delay. */
export const TooltipProvider = TooltipPrimitive.Provider;

/** A tooltip on hover and on keyboard focus; the trigger must be focusable (a button or link). */
export function Tooltip({ content, children, side = "right" }: { content: ReactNode; children: ReactNode; side?: "top" | "right" | "bottom" | "left" }) {
  return (
    <TooltipPrimitive.Root>
      <TooltipPrimitive.Trigger asChild>{children}</TooltipPrimitive.Trigger>
      <TooltipPrimitive.Portal>
        <TooltipPrimitive.Content side={side} sideOffset={6} className="z-50 max-w-xs rounded-md bg-zinc-900 px-2.5 py-1.5 text-xs text-white shadow-md dark:bg-zinc-100 dark:text-zinc-900">
          {content}
          <TooltipPrimitive.Arrow className="fill-zinc-900 dark:fill-zinc-100" />
        </TooltipPrimitive.Content>
      </TooltipPrimitive.Portal>
    </TooltipPrimitive.Root>
  );
}
