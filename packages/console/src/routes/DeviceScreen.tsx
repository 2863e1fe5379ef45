import { getRouteApi } from '@tanstack/react-router';
import { DevicePage } from '../features/devices/DevicePage';

const route = getRouteApi('/devices/$prn');

export function DeviceScreen() {
  const { prn } = route.useParams();
  return <DevicePage key={prn} prn={prn} />;
}
