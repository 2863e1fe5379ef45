/** One product: its cohorts (each links to its release chain), and forms to add a cohort or a device. */
import { Group, Select, Stack, TextInput, Title } from '@mantine/core';
import { useState } from 'react';
import { useSession } from '../../api/session-context';
import { AnchorLink } from '../../ui/AnchorLink';
import { CreateForm } from '../../ui/CreateForm';
import { ResourceTable } from '../../ui/ResourceTable';
import { useCreateResource } from '../../ui/useCreateResource';
import { deviceKeys } from '../devices/queries';
import { namesOf, productKeys, useCohorts, useProducts, type Cohort } from './queries';

export function ProductPage({ prn }: { prn: string }) {
  const { canWrite } = useSession();
  const products = useProducts();
  const cohorts = useCohorts(prn);
  const name = namesOf(products.data).get(prn);
  return (
    <Stack>
      <Title order={1} size="h2">
        {name ?? 'Product'}
      </Title>
      {canWrite && (
        <Group align="flex-start" wrap="wrap">
          <CreateCohort productPrn={prn} />
          <AddDevice productPrn={prn} cohorts={cohorts.data ?? []} />
        </Group>
      )}
      <Title order={2} size="h3">
        Cohorts
      </Title>
      <ResourceTable<Cohort>
        label="Cohorts"
        query={cohorts}
        listKey={productKeys.cohorts}
        rowTestId="cohort-row"
        minWidth={360}
        columns={[
          { header: 'Cohort', cell: (c) => <AnchorLink to="/cohorts/$prn" params={{ prn: c.prn }}>{c.name}</AnchorLink> },
          { header: 'Devices', cell: (c) => <AnchorLink to="/fleet" search={{ q: `cohort_prn:'${c.prn}'` }}>Show in the fleet view</AnchorLink> },
        ]}
        empty={{ title: 'No cohorts yet', text: 'Releases are published to a cohort: create one, then put devices in it.' }}
      />
    </Stack>
  );
}

function CreateCohort({ productPrn }: { productPrn: string }) {
  const [name, setName] = useState('');
  const create = useCreateResource('/cohorts', productKeys.cohorts, (body) => `Cohort ${body.name} created`, () => setName(''));
  return (
    <CreateForm title="New cohort" submitLabel="Create cohort" pending={create.isPending} error={create.error} onSubmit={() => create.mutate({ name: name.trim(), product_prn: productPrn })}>
      <TextInput label="New cohort name" value={name} onChange={(e) => setName(e.currentTarget.value)} required />
    </CreateForm>
  );
}

function AddDevice({ productPrn, cohorts }: { productPrn: string; cohorts: Cohort[] }) {
  const [identifier, setIdentifier] = useState('');
  const [cohort, setCohort] = useState<string | null>(null);
  const add = useCreateResource('/devices', deviceKeys.lists, (body) => `Device ${body.identifier} created`, () => setIdentifier(''));
  return (
    <CreateForm
      title="New device"
      submitLabel="Add device"
      pending={add.isPending}
      error={add.error}
      onSubmit={() => add.mutate({ identifier: identifier.trim(), product_prn: productPrn, ...(cohort ? { cohort_prn: cohort } : {}) })}
    >
      <TextInput label="New device identifier" value={identifier} onChange={(e) => setIdentifier(e.currentTarget.value)} required />
      <Select label="Its cohort" data={cohorts.map((c) => ({ value: c.prn, label: c.name }))} value={cohort} onChange={setCohort} clearable />
    </CreateForm>
  );
}
