/**
 * The wire schemas of the update check's two answers (answers.ts builds both, typed by these):
 * the admin API's flat `{status, source_type, source_prn, bundle_prn, manifest}` and the device
 * API's `{status}` plus each expansion asked for, every one of them null when there is none.
 */
import { Type, type Static } from 'typebox';
import { AdminManifestEntry, ManifestEntry } from '../binaries/manifest-schemas';
import { BundleOverride } from '../bundle-overrides/api-schemas';
import { BundleSummary } from '../bundles/api-schemas';
import { DeviceBundleSignature } from '../bundle-signatures/wire';
import { Cohort } from '../cohorts/api-schemas';
import { Nullable, Prn } from '../http/schemas';
import { Release } from '../releases/api-schemas';

export const UpdateStatus = Type.Union([Type.Literal('update'), Type.Literal('no_update'), Type.Literal('device_quarantine'), Type.Literal('retry_later')], {
  description: '`retry_later`: the release\'s concurrency cap is full; check again after `retry_after` seconds.',
});
const RetryAfter = Type.Integer({ minimum: 1, description: 'With `retry_later` only: seconds to wait before checking again (the daemon polls then instead of at its interval).' });
export const SourceType = Type.Union([Type.Literal('release'), Type.Literal('bundle_override'), Type.Null()], {
  description: 'Where the bundle comes from; null when nothing is offered.',
});

export const AdminUpdateAnswer = Type.Object(
  {
    status: UpdateStatus,
    source_type: SourceType,
    source_prn: Nullable(Prn('The release or bundle override the bundle comes from.')),
    bundle_prn: Nullable(Prn('The bundle to install.')),
    manifest: Nullable(Type.Array(AdminManifestEntry)),
    retry_after: Type.Optional(RetryAfter),
  },
  { description: 'What the device should run now, with the manifest to install when the status is `update`.' },
);
export type AdminUpdateAnswer = Static<typeof AdminUpdateAnswer>;

/** The bundle of a device's answer: its summary and the bundle signatures a device of its target may check. */
const DeviceBundle = Type.Object(
  {
    ...BundleSummary.properties,
    signatures: Type.Array(DeviceBundleSignature, { description: "Bundle signatures made for the device's target or for every target, oldest first (guides/trust/bundle-signatures)." }),
  },
  { description: 'The bundle, without its artifact versions, with its signatures.' },
);

/** Each expansion is present only when asked for (`expand`), and null when there is none. */
export const DeviceUpdateAnswer = Type.Object(
  {
    status: UpdateStatus,
    retry_after: Type.Optional(RetryAfter),
    source_type: Type.Optional(SourceType),
    release: Type.Optional(Nullable(Release, { description: 'The release the bundle comes from; null for an override or no update.' })),
    bundle: Type.Optional(Nullable(DeviceBundle, { description: 'The bundle to run, with its signatures for the device\'s target; null when nothing is offered.' })),
    bundle_override: Type.Optional(Nullable(BundleOverride, { description: 'The override the bundle comes from; null for a release or no update.' })),
    cohort: Type.Optional(Nullable(Cohort, { description: "The device's cohort; null when it has none." })),
    manifest: Type.Optional(Nullable(Type.Array(ManifestEntry), { description: 'One entry per binary to install; null unless the status is `update`.' })),
  },
  { description: '`status`, plus each expansion asked for.' },
);
export type DeviceUpdateAnswer = Static<typeof DeviceUpdateAnswer>;
