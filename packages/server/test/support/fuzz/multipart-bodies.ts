/**
 * Generated multipart/form-data bodies for the operations that take a form (the legacy firmware
 * upload): fwup archives signed by the organization's key (so some uploads are stored), and the
 * ways an archive or a form goes wrong: a tampered meta.conf, an unknown key, a missing
 * meta.conf or signature, another product, hostile meta values, not a zip, empty; hostile or
 * unknown fields, a second file, a file under another name, a form cut off before its end, a
 * boundary that does not match. Each is a fast-check arbitrary, so a run replays from its seed.
 */
import fc from 'fast-check';
import { firmwareKey, fwupArchive, type FirmwareKey } from '../fwup';
import { multipartBody, type FormPart } from '../multipart';
import type { Operation } from './operations';
import { hostileValue, validValue, type JsonSchema, type ValueContext } from './schema-arbitrary';
import { hostileString } from './values';

export interface ArchiveSigning {
  /** A key the organization registered: archives it signs pass the signature check. */
  key: FirmwareKey;
  /** Products of the organization: archives name them (meta-product), forms their prn (`product_prn`). */
  products: { name: string; prn: string }[];
}

/** Signed by no key of any organization: its uploads must answer 500 invalid_signature. */
const strangerKey = firmwareKey();

const VERSIONS = ['1.0.0', '2.1.3-rc.1', '0.0.1+build.7', '10.20.30'];

function archiveOf(signing: ArchiveSigning | undefined): fc.Arbitrary<Buffer> {
  const key = signing?.key ?? strangerKey;
  const product = fc.constantFrom(...(signing?.products.length ? signing.products.map((p) => p.name) : ['gateway']));
  const meta = fc.record({ 'meta-product': product, 'meta-version': fc.constantFrom(...VERSIONS), 'meta-uuid': fc.uuid({ version: 4 }), 'meta-platform': fc.constantFrom('rpi4', 'bbb') });
  const signed = (options: Partial<Parameters<typeof fwupArchive>[0]> = {}) => meta.map((m) => fwupArchive({ meta: m, key, imageBytes: 512, ...options }));
  return fc.oneof(
    { arbitrary: signed(), weight: 6 },
    { arbitrary: signed({ key: strangerKey }), weight: 2 },
    { arbitrary: signed({ tamper: (text) => text.replace('meta-version="', 'meta-version="9') }), weight: 1 },
    { arbitrary: signed({ without: 'meta.conf' }), weight: 1 },
    { arbitrary: signed({ without: 'meta.conf.ed25519' }), weight: 1 },
    { arbitrary: meta.map((m) => fwupArchive({ meta: { ...m, 'meta-product': 'not-this-product' }, key, imageBytes: 64 })), weight: 1 },
    // One meta value made hostile (or left out), still correctly signed: only the parser stands between it and the database.
    {
      arbitrary: fc
        .tuple(meta, fc.constantFrom('meta-product', 'meta-version', 'meta-uuid', 'meta-platform', 'meta-author', 'meta-misc'), fc.option(fc.oneof(hostileString, fc.constant('x'.repeat(1100))), { nil: undefined }))
        .map(([m, field, value]) => fwupArchive({ meta: { ...m, [field]: value }, key, imageBytes: 64 })),
      weight: 2,
    },
    { arbitrary: fc.uint8Array({ maxLength: 600 }).map((bytes) => Buffer.from(bytes)), weight: 1 },
    { arbitrary: fc.constant(Buffer.alloc(0)), weight: 1 },
    // A zip cut short: its central directory is gone.
    { arbitrary: fc.tuple(signed(), fc.integer({ min: 1, max: 400 })).map(([zip, cut]) => zip.subarray(0, Math.max(0, zip.length - cut))), weight: 1 },
  );
}

/** One text field: a valid-looking value of its schema, a hostile one, or the raw text of either. */
function fieldValue(name: string, schema: JsonSchema, context: ValueContext, signing: ArchiveSigning | undefined): fc.Arbitrary<string> {
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value) ?? '');
  // The product the signed archives name, so that some uploads get past the product checks.
  const products = name === 'product_prn' && signing?.products.length ? [{ arbitrary: fc.constantFrom(...signing.products.map((p) => p.prn)), weight: 8 }] : [];
  return fc.oneof(
    ...products,{ arbitrary: validValue(schema, context, name).map(text), weight: 5 }, { arbitrary: hostileValue(schema, context, name).map(text), weight: 2 }, { arbitrary: hostileString, weight: 1 });
}

export function multipartBodies(operation: Operation, context: ValueContext, signing: ArchiveSigning | undefined): fc.Arbitrary<{ body: Buffer; contentType: string }> {
  const form = operation.multipart!;
  const properties: Record<string, JsonSchema> = form.properties ?? {};
  const textFields = Object.entries(properties).filter(([, schema]) => schema.format !== 'binary');
  const fileField = Object.entries(properties).find(([, schema]) => schema.format === 'binary')?.[0] ?? 'file';
  const required = new Set<string>(form.required ?? []);
  const fields = fc.tuple(
    ...textFields.map(([name, schema]) => fc.option(fieldValue(name, schema, context, signing).map((value): FormPart => ({ name, value })), { freq: required.has(name) ? 8 : 2, nil: null })),
  );
  // One form in five carries a part too many: an unknown field, a second file, a file under another name, text for the file.
  const extras = fc.oneof(
    { arbitrary: fc.constant([] as FormPart[]), weight: 16 },
    { arbitrary: fc.tuple(hostileString, hostileString).map(([name, value]): FormPart[] => [{ name: name || 'x', value }]), weight: 1 },
    { arbitrary: archiveOf(signing).map((file): FormPart[] => [{ name: fileField, file }]), weight: 1 },
    { arbitrary: archiveOf(signing).map((file): FormPart[] => [{ name: 'other', file }]), weight: 1 },
    { arbitrary: fc.string({ maxLength: 40 }).map((value): FormPart[] => [{ name: fileField, value }]), weight: 1 },
  );
  // Nearly every form has its file; one in six under a hostile file name.
  const filename = fc.oneof({ arbitrary: fc.constant(undefined), weight: 5 }, { arbitrary: hostileString, weight: 1 });
  const file = fc.option(fc.tuple(archiveOf(signing), filename), { freq: 12, nil: null });
  const framing = fc.constantFrom(...Array<string>(9).fill('whole'), 'unterminated', 'wrong-boundary', 'no-boundary');
  return fc.record({ fields, extras, file, framing }).map(({ fields: chosen, extras: extra, file: upload, framing: frame }) => {
    const parts: FormPart[] = chosen.filter((part): part is FormPart => part !== null);
    if (upload) parts.push({ name: fileField, file: upload[0], filename: upload[1] });
    parts.push(...extra);
    const written = multipartBody(parts, { boundary: 'fuzz-boundary-7MA4YWxkTrZu0gW', unterminated: frame === 'unterminated' });
    const contentType = frame === 'wrong-boundary' ? 'multipart/form-data; boundary=another' : frame === 'no-boundary' ? 'multipart/form-data' : written.contentType;
    return { body: written.body, contentType };
  });
}
