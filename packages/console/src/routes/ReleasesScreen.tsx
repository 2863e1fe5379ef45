import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { ReleasesPage } from '../features/releases/ReleasesPage';

const route = getRouteApi('/releases');

export function ReleasesScreen() {
  const search = route.useSearch();
  const navigate = useNavigate();
  return <ReleasesPage search={search} onSearch={(next) => navigate({ to: '/releases', search: next })} />;
}
