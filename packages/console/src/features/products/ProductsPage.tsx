/** Products: the list, and a form to create one. */
import { Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { AnchorLink } from '../../ui/AnchorLink';
import { CreateForm } from '../../ui/CreateForm';
import { ResourceTable } from '../../ui/ResourceTable';
import { Time } from '../../ui/Time';
import { useCreateResource } from '../../ui/useCreateResource';
import { productKeys, useProducts, type Product } from './queries';

export function ProductsPage() {
  const { canWrite } = useSession();
  const products = useProducts();
  return (
    <Stack>
      <Title order={1} size="h2">
        Products
      </Title>
      {canWrite && <CreateProduct />}
      <ResourceTable<Product>
        label="Products"
        query={products}
        listKey={productKeys.list}
        rowTestId="product-row"
        minWidth={360}
        columns={[
          { header: 'Name', cell: (p) => <AnchorLink to="/products/$prn" params={{ prn: p.prn }}>{p.name}</AnchorLink> },
          { header: 'Created', cell: (p) => <Time value={p.inserted_at} /> },
        ]}
        empty={{ title: 'No products yet', text: 'A product groups devices of one kind. Create one above, then add cohorts and devices to it.' }}
      />
    </Stack>
  );
}

function CreateProduct() {
  const [name, setName] = useState('');
  const create = useCreateResource('/products', productKeys.list, (body) => `Product ${body.name} created`, () => setName(''));
  return (
    <CreateForm title="New product" submitLabel="Create product" pending={create.isPending} error={create.error} onSubmit={() => create.mutate({ name: name.trim() })}>
      <TextInput label="New product name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
    </CreateForm>
  );
}
