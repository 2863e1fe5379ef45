import { getRouteApi, useNavigate } from '@tanstack/react-router';
import { ReleasePage } from '../features/releases/ReleasePage';
import { ReleasesPage } from '../features/releases/ReleasesPage';

const route = getRouteApi('/releases');

export function ReleasesScreen() {
  const search = route.useSearch();
  const navigate = useNavigate();
  return <ReleasesPage search={search} onSearch={(next) => navigate({ to: '/releases', search: next })} />;
}

const releaseRoute = getRouteApi('/releases/$prn');

export function ReleaseScreen() {
  const { prn } = releaseRoute.useParams();
  return <ReleasePage key={prn} prn={prn} />;
}
