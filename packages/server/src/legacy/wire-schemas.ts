/** The legacy API's response schemas (docs: canopy-core/reference/legacy-api), shared by its routes. */
import { Type } from 'typebox';
import { Nullable, Prn, Timestamp } from '../http/schemas';

const Text = (description: string) => Nullable(Type.String({ description }));

export const Firmware = Type.Object(
  {
    prn: Prn('Resource name of the firmware.'),
    product_prn: Prn('The product it is for.'),
    uuid: Type.String({ description: "The archive's meta-uuid; unique in the organization." }),
    version: Type.String({ description: 'meta-version.' }),
    platform: Text('meta-platform.'),
    architecture: Text('meta-architecture.'),
    author: Text('meta-author.'),
    description: Text('meta-description.'),
    vcs_identifier: Text('meta-vcs-identifier.'),
    misc: Text('meta-misc.'),
    fwup_version: Text('meta-fwup-version.'),
    product: Type.String({ description: "The product's name (the archive's meta-product)." }),
    size: Type.Integer({ description: 'Archive size in bytes.' }),
    ttl: Nullable(Type.Integer({ description: 'Seconds after upload when the firmware is deleted unless a deployment uses it; null: kept.' })),
    expires_at: Nullable(Timestamp('When the ttl runs out.')),
    inserted_at: Timestamp('When it was uploaded.'),
    updated_at: Timestamp('When it last changed.'),
    url: Type.Optional(Type.String({ description: 'With `expand=url`: a download URL valid 24 hours.' })),
  },
  { description: 'A fwup firmware archive.' },
);

export const Deployment = Type.Object(
  {
    prn: Prn('Resource name of the deployment.'),
    product_prn: Prn('Its product.'),
    name: Type.String({ description: 'Unique within the product.' }),
    firmware_uuid: Type.String({ description: 'The firmware it offers.' }),
    conditions: Type.Object({
      version: Type.String({ description: 'Elixir version requirement on the device firmware version; empty: any.' }),
      tags: Type.Array(Type.String(), { description: 'Tags a device must all have.' }),
    }),
    is_active: Type.Boolean({ description: 'Offered to devices only while true.' }),
    state: Type.Union([Type.Literal('on'), Type.Literal('off')], { description: '`on` exactly when is_active.' }),
    delta_updatable: Type.Boolean({ description: 'Stored and shown; Canopy serves whole archives.' }),
    inserted_at: Timestamp('When it was created.'),
    updated_at: Timestamp('When it last changed.'),
  },
  { description: 'A legacy deployment.' },
);

/** The body of deployment create and update; checked field by field in deployment-service.ts. */
export const DeploymentBody = (firmwareField: 'firmware' | 'firmware_uuid') =>
  Type.Object(
    {
      name: Type.Optional(Type.Unknown({ description: 'Name, 1 to 128 characters, unique within the product.' })),
      [firmwareField]: Type.Optional(Type.Unknown({ description: "The firmware's uuid (a firmware of the same product)." })),
      conditions: Type.Optional(Type.Unknown({ description: '`{"version": "~> 1.2", "tags": ["beta"]}`; both optional.' })),
      is_active: Type.Optional(Type.Unknown({ description: 'Boolean.' })),
      state: Type.Optional(Type.Unknown({ description: '`on` or `off`, the same setting as is_active.' })),
      delta_updatable: Type.Optional(Type.Unknown({ description: 'Boolean.' })),
    },
    { additionalProperties: true },
  );

/** `{"data": ...}` of the organization-scoped paths. */
export const Data = <T extends Parameters<typeof Type.Object>[0][string]>(item: T, description: string) => Type.Object({ data: item }, { description });
export const DataList = <T extends Parameters<typeof Type.Object>[0][string]>(item: T, description: string) =>
  Type.Object({ data: Type.Array(item), next_page: Nullable(Type.String({ description: 'Cursor for the next page; null on the last page.' })) }, { description });
