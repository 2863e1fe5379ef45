/**
 * TypeBox building blocks shared by every route: one schema gives validation, TypeScript types,
 * fast response serialisation and the OpenAPI document.
 */
import { Type, type TSchema } from 'typebox';

/** A value or null; JSON Schema's type list keeps length/format rules on the non-null branch. */
export function Nullable<T extends TSchema>(schema: T, options: Record<string, unknown> = {}) {
  const { type, ...rest } = schema as unknown as { type: string };
  return Type.Unsafe<Type.Static<T> | null>({ ...rest, ...options, type: [type, 'null'] });
}

export const Prn = (description: string, example = 'prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70:device:0b6f1c2e-5d4a-4c3b-8a9f-1e2d3c4b5a69') =>
  Type.String({ minLength: 1, maxLength: 200, description, examples: [example] });

export const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2025-06-11T05:04:10.081728Z'] });

export const Name = (description = 'Name, 1 to 128 characters.') =>
  Type.String({ minLength: 1, maxLength: 128, description, examples: ['gateway-fleet'] });

export const Description = (description = 'Description, 1 to 256 characters.') =>
  Type.String({ minLength: 1, maxLength: 256, description, examples: ['Units installed in the east warehouse'] });

export const CustomMetadata = Type.Record(Type.String(), Type.Unknown(), {
  description: 'Free-form JSON object, at most 1,000,000 bytes serialised.',
  examples: [{ hardware_revision: 'B2' }],
});

export const ResourceFields = {
  prn: Prn('Resource name of this item.'),
  organization_prn: Prn('The organization that owns it.', 'prn:1:9a3b1f5e-7c1d-4e0a-9a4b-2f3c4d5e6f70'),
  inserted_at: Timestamp('When it was created (RFC 3339 UTC, microseconds).'),
  updated_at: Timestamp('When it last changed.'),
};

export const ErrorBody = Type.Object(
  {
    errors: Type.Array(
      Type.Object({
        code: Type.String({ description: 'snake_case error code', examples: ['validation'] }),
        context: Type.Record(Type.String(), Type.Unknown(), { description: 'Details: the field, parameter or state concerned.' }),
      }),
    ),
  },
  {
    description: 'Every non-2xx answer: one entry per problem.',
    examples: [{ errors: [{ code: 'validation', context: { field: 'name', reason: 'too_long', max: 128 } }] }],
  },
);

export const PrnParams = (description: string) => Type.Object({ prn: Prn(description) });

/** `{"<singular>": item}` */
export function single<T extends TSchema>(key: string, item: T, description = `The ${key.replace(/_/g, ' ')}.`) {
  return Type.Object({ [key]: item }, { description });
}

/** `{"<plural>": [items], "next_page": cursor | null}` */
export function list<T extends TSchema>(key: string, item: T) {
  return Type.Object(
    {
      [key]: Type.Array(item),
      next_page: Nullable(Type.String({ description: 'Cursor for the next page; null on the last page.' })),
    },
    { description: `A page of ${key.replace(/_/g, ' ')}.` },
  );
}

export const errorResponse = (description: string) => ({ ...ErrorBody, description });

/** The error answers every admin route can give, for the OpenAPI document. */
export const STANDARD_ERRORS = {
  400: errorResponse('Malformed request or parameter.'),
  401: errorResponse('No API key, or a bad one.'),
  403: errorResponse("The key's role does not allow this."),
  404: errorResponse('No such resource in this organization.'),
  409: errorResponse('Conflicts with the current state.'),
  413: errorResponse('Body too large.'),
  422: errorResponse('A field failed validation.'),
};

/** The error answers every device API route can give, for the OpenAPI document. */
export const DEVICE_ERRORS = {
  400: { ...ErrorBody, description: 'A malformed header or parameter.' },
  401: { ...ErrorBody, description: 'No client certificate, or one that does not authenticate a device; `context.reason` says why.' },
};

/** 204 answers: no body. */
export const NoContent = (description: string) => Type.Unsafe<void>({ type: 'null', description });
