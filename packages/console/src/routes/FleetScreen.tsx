import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { FleetView } from '../features/fleet/FleetView';

const route = getRouteApi('/fleet');

export function FleetScreen() {
  const search = route.useSearch();
  const navigate = useNavigate();
  return <FleetView search={search} onSearch={(next) => navigate({ to: '/fleet', search: next })} />;
}
