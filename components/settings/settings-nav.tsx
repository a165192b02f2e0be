"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { cn, focusRing } from "@/components/ui";

export const settingsSections = [
  { href: "/settings/api-keys", label: "API keys" },
  { href: "/settings/secrets", label: "Secrets" },
  { href: "/settings/providers", label: "Model providers" },
  { href: "/settings/mcp", label: "MCP endpoints" },
  { href: "/settings/mcp-server", label: "MCP server" },
  { href: "/settings/members", label: "Members and roles" },
  { href: "/settings/grants", label: "Approval grants" },
  { href: "/settings/schedules", label: "Schedules" },
  { href: "/settings/webhooks", label: "Webhooks" },
  { href: "/settings/notifications", label: "Notifications" },
  { href: "/settings/audit-log", label: "Audit log" },
] as const;

/** The settings' own navigation, beside each settings page. */
export function SettingsNav() {
  const pathname = usePathname() ?? "";
  return (
    <nav aria-label="Settings" className="w-48 shrink-0">
      <p className="mb-2 px-2.5 text-xs font-semibold tracking-wide text-zinc-600 uppercase dark:text-zinc-400">Settings</p>
      <ul className="space-y-0.5">
        {settingsSections.map((section) => {
          const active = pathname === section.href || pathname.startsWith(`${section.href}/`);
          return (
            <li key={section.href}>
              <Link
                href={section.href}
                aria-current={active ? "page" : undefined}
                className={cn("block rounded-md px-2.5 py-1.5 text-sm font-medium", focusRing, active ? "bg-indigo-50 text-indigo-800 dark:bg-indigo-950 dark:text-indigo-100" : "text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800")}
              >
                {section.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** A settings table's frame. */
export function SettingsTable({ caption, head, children }: { caption: string; head: string[]; children: React.ReactNode }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-zinc-200 dark:border-zinc-800">
      <table className="w-full text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-zinc-50 text-left text-xs text-zinc-600 dark:bg-zinc-900 dark:text-zinc-400">
          <tr>
            {head.map((label) => (
              <th key={label} scope="col" className="px-3 py-2 font-medium">
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800">{children}</tbody>
      </table>
    </div>
  );
}

export const td = "px-3 py-2 align-top";
