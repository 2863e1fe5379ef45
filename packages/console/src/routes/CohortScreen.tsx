import { getRouteApi } from '@tanstack/react-router';
import { CohortPage } from '../features/releases/CohortPage';

const route = getRouteApi('/cohorts/$prn');

export function CohortScreen() {
  const { prn } = route.useParams();
  return <CohortPage key={prn} prn={prn} />;
}
