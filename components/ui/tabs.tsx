"use client";
import * as TabsPrimitive from "@radix-ui/react-tabs";
import type { ComponentProps } from "react";
import { cn } from "@/components/ui/cn";
import { focusRing } from "@/components/ui/button";

/** Radix tabs (arrow keys move between tabs) with the console's look. */
export const Tabs = TabsPrimitive.Root;

export function TabsList({ className, ...props }: ComponentProps<typeof TabsPrimitive.List>) {
  return <TabsPrimitive.List className={cn("flex gap-1 border-b border-zinc-200 dark:border-zinc-800", className)} {...props} />;
}

export function TabsTrigger({ className, ...props }: ComponentProps<typeof TabsPrimitive.Trigger>) {
  return (
    <TabsPrimitive.Trigger
      className={cn(
        "-mb-px border-b-2 border-transparent px-3 py-2 text-sm font-medium text-zinc-600 hover:text-zinc-900 data-[state=active]:border-indigo-600 data-[state=active]:text-zinc-900 dark:text-zinc-400 dark:hover:text-zinc-100 dark:data-[state=active]:border-indigo-400 dark:data-[state=active]:text-zinc-50",
        focusRing,
        className,
      )}
      {...props}
    />
  );
}

export function TabsContent({ className, ...props }: ComponentProps<typeof TabsPrimitive.Content>) {
  return <TabsPrimitive.Content className={cn("pt-4", focusRing, className)} {...props} />;
}
