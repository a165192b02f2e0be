/**
 * The console's sections, in the order the navigation shows them; `href: null` is not available yet. `badge`: a live
 * count shown beside the label.
 */
export type NavItem = { label: string; href: string | null; icon: keyof typeof navIcons; description: string; badge?: "pending-approvals" };

export const navItems: NavItem[] = [
  { label: "Catalog", href: "/tools", icon: "catalog", description: "Registered tools and their schemas" },
  { label: "Agents", href: "/agents", icon: "agents", description: "Agent definitions and their versions" },
  { label: "Playground", href: "/playground", icon: "playground", description: "Talk to an agent" },
  { label: "Approvals", href: "/approvals", icon: "approvals", description: "Tool calls waiting for a person", badge: "pending-approvals" },
  { label: "Runs", href: "/runs", icon: "runs", description: "What agents did, step by step" },
  { label: "Settings", href: "/settings", icon: "settings", description: "Projects, keys, providers and secrets" },
];

/** 20×20 outline paths. */
export const navIcons = {
  catalog: "M3 4.5h14M3 10h14M3 15.5h14M6 3v3M6 8.5v3M6 14v3",
  agents: "M10 3a3 3 0 1 1 0 6 3 3 0 0 1 0-6Zm-6 14c.6-3 3-4.5 6-4.5s5.4 1.5 6 4.5",
  playground: "M4 5.5A1.5 1.5 0 0 1 5.5 4h9A1.5 1.5 0 0 1 16 5.5v6a1.5 1.5 0 0 1-1.5 1.5H9l-3.5 3v-3h0A1.5 1.5 0 0 1 4 11.5v-6Z",
  approvals: "M4 10.5 8 14.5 16 5.5",
  runs: "M3 10h3l2-5 4 10 2-5h3",
  settings: "M10 7a3 3 0 1 1 0 6 3 3 0 0 1 0-6ZM10 2v2.5M10 15.5V18M2 10h2.5M15.5 10H18M4.3 4.3l1.8 1.8M13.9 13.9l1.8 1.8M4.3 15.7l1.8-1.8M13.9 6.1l1.8-1.8",
} as const;
