import { MembersPage } from "@/components/settings/members";

export const metadata = { title: "Members · Settings · Kindgi Console" };

// /settings/members
export default function Page() {
  return <MembersPage />;
}
