import { queryOptions, useQuery } from '@tanstack/react-query';
import type { CanopyClient } from '@canopy/sdk/browser';
import { useSession } from '../../api/session-context';
import { listEvery } from '../../api/lists';
import type { ListItem } from '../../api/paths';

export type Product = ListItem<'/products'>;
export type Cohort = ListItem<'/cohorts'>;

export const productKeys = {
  list: ['products'] as const,
  /** Every cohort list (the key of one product's cohorts starts with it). */
  cohorts: ['cohorts'] as const,
  cohortsOf: (productPrn?: string) => ['cohorts', productPrn ?? 'all'] as const,
};

export const productsQuery = (client: CanopyClient) => queryOptions({ queryKey: productKeys.list, queryFn: () => listEvery(client, '/products', 'products', { order: 'asc' }) });

export const cohortsQuery = (client: CanopyClient, productPrn?: string) =>
  queryOptions({
    queryKey: productKeys.cohortsOf(productPrn),
    queryFn: () => listEvery(client, '/cohorts', 'cohorts', { order: 'asc', ...(productPrn ? { search: `product_prn:'${productPrn}'` } : {}) }),
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
