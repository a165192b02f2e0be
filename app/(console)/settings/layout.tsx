import type { ReactNode } from "react";
import { SettingsNav } from "@/components/settings/settings-nav";

// /settings/… – the sub-navigation beside each settings page
export default function SettingsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="flex gap-8">
      <SettingsNav />
      <div className="min-w-0 flex-1">{children}</div>
    </div>
  );
}
