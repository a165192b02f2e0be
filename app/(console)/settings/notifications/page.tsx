import { NotificationsPage } from "@/components/settings/notifications";

export const metadata = { title: "Notifications · Settings · Kindgi Console" };

// /settings/notifications
export default function Page() {
  return <NotificationsPage />;
}
