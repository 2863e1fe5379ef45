import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { EventLog } from '../features/events/EventLog';

const route = getRouteApi('/events');

export function EventsScreen() {
  const search = route.useSearch();
  const navigate = useNavigate();
  return <EventLog search={search} onSearch={(next) => navigate({ to: '/events', search: next })} />;
}
