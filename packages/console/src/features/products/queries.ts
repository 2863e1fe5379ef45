import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { useSession } from '../../api/session-context';
import { listEvery } from '../../api/lists';
import type { Cohort, Product } from '../../api/types';

export const productsQuery = (client: CanopyClient) => queryOptions({ queryKey: ['products'], queryFn: () => listEvery<Product>(client, '/products', 'products', { order: 'asc' }) });

export const cohortsQuery = (client: CanopyClient, productPrn?: string) =>
  queryOptions({
    queryKey: ['cohorts', productPrn ?? 'all'],
    queryFn: () => listEvery<Cohort>(client, '/cohorts', 'cohorts', { order: 'asc', ...(productPrn ? { search: `product_prn:'${productPrn}'` } : {}) }),
  });

export function useProducts() {
  const { client } = useSession();
  return useQuery(productsQuery(client));
}

export function useCohorts(productPrn?: string) {
  const { client } = useSession();
  return useQuery(cohortsQuery(client, productPrn));
}

/** prn -> name, for showing products and cohorts by name in tables. */
export function namesOf(items: { prn: string; name: string }[] | undefined): Map<string, string> {
  return new Map((items ?? []).map((item) => [item.prn, item.name]));
}
