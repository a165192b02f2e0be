import { GrantsPage } from "@/components/settings/grants";

export const metadata = { title: "Approval grants · Settings · Kindgi Console" };

// /settings/grants
export default function Page() {
  return <GrantsPage />;
}
