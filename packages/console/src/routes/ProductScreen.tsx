import { getRouteApi } from '@tanstack/react-router';
import { ProductPage } from '../features/products/ProductPage';

const route = getRouteApi('/products/$prn');

export function ProductScreen() {
  const { prn } = route.useParams();
  return <ProductPage key={prn} prn={prn} />;
}
