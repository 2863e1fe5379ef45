import { getRouteApi } from '@tanstack/react-router';
import { WebhookPage } from '../features/webhooks/WebhookPage';

const route = getRouteApi('/webhooks/$prn');

export function WebhookScreen() {
  const { prn } = route.useParams();
  return <WebhookPage key={prn} prn={prn} />;
}
