import { SchedulesPage } from "@/components/settings/schedules";

export const metadata = { title: "Schedules · Settings · Kindgi Console" };

// /settings/schedules
export default function Page() {
  return <SchedulesPage />;
}
