"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn, focusRing, Tooltip } from "@/components/ui";
import { navIcons, navItems } from "@/components/shell/nav-items";
import { usePendingApprovalCount } from "@/lib/client/use-pending-approval-count";

function NavIcon({ name }: { name: keyof typeof navIcons }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 20 20" className="h-4 w-4 shrink-0" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" strokeLinejoin="round">
      <path d={navIcons[name]} />
    </svg>
  );
}

/** The left navigation: the sections that exist as links, the ones still to come as disabled entries with a tooltip. */
export function SideNav() {
  const pathname = usePathname() ?? "/";
  const pending = usePendingApprovalCount();
  return (
    <nav aria-label="Main" className="flex flex-col gap-0.5 px-2 py-3">
      {navItems.map((item) => {
        const base = "flex w-full items-center gap-2.5 rounded-md px-2.5 py-1.5 text-sm font-medium";
        if (!item.href) {
          return (
            <Tooltip key={item.label} content={`${item.label} is not available yet: it comes in a later release.`}>
              <button type="button" aria-disabled="true" className={cn(base, "cursor-not-allowed text-zinc-500 dark:text-zinc-400", focusRing)}>
                <NavIcon name={item.icon} />
                <span>
                  {item.label}
                  <span className="sr-only"> (not available yet)</span>
                </span>
                <svg aria-hidden="true" viewBox="0 0 20 20" className="ml-auto h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round">
                  <rect x="4.5" y="9" width="11" height="8" rx="1.5" />
                  <path d="M7 9V6.5a3 3 0 0 1 6 0V9" />
                </svg>
              </button>
            </Tooltip>
          );
        }
        const active = pathname === item.href || pathname.startsWith(`${item.href}/`);
        const count = item.badge === "pending-approvals" ? pending : null;
        return (
          <Link
            key={item.label}
            href={item.href}
            aria-current={active ? "page" : undefined}
            className={cn(
              base,
              focusRing,
              active
                ? "bg-indigo-50 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-100"
                : "text-zinc-700 hover:bg-zinc-100 hover:text-zinc-900 dark:text-zinc-300 dark:hover:bg-zinc-800 dark:hover:text-zinc-50",
            )}
          >
            <NavIcon name={item.icon} />
            <span>{item.label}</span>
            {count ? (
              <>
                <span className="sr-only">, </span>
                <span data-testid="nav-approval-count" className="ml-auto min-w-5 rounded-full bg-indigo-600 px-1.5 py-0.5 text-center text-xs font-semibold tabular-nums text-white">
                  {count.label}
                </span>
                <span className="sr-only"> pending</span>
              </>
            ) : null}
          </Link>
        );
      })}
    </nav>
  );
}
