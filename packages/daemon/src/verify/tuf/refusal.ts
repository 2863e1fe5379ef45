/**
 * Why TUF verification refused an update, as the `tuf_<check>` reason the daemon reports. tuf-js
 * does not export its error classes, so they are told apart by class name.
 */
export type TufCheck = 'expired' | 'rollback' | 'signature' | 'hash_or_length' | 'metadata_length' | 'fetch' | 'not_in_targets' | 'length_mismatch' | 'hash_mismatch' | 'metadata';

export class TufRefusal extends Error {
  constructor(
    readonly check: TufCheck,
    detail: string,
  ) {
    super(`tuf_${check}: ${detail}`.slice(0, 240));
  }
}

const BY_CLASS: Record<string, TufCheck> = {
  ExpiredMetadataError: 'expired',
  BadVersionError: 'rollback',
  EqualVersionError: 'rollback',
  UnsignedMetadataError: 'signature',
  LengthOrHashMismatchError: 'hash_or_length',
  DownloadLengthMismatchError: 'metadata_length',
  DownloadHTTPError: 'fetch',
};

/** The refusal of an error thrown by tuf-js's Updater (or our fetcher). */
export function refusalOf(error: unknown): TufRefusal {
  if (error instanceof TufRefusal) return error;
  const message = error instanceof Error ? error.message : String(error);
  const className = error instanceof Error ? error.constructor.name.replace(/\d+$/, '') : '';
  if (className === 'MetadataFetchError') return new TufRefusal((error as { kind: string }).kind === 'length' ? 'metadata_length' : 'fetch', message);
  // tuf-js rethrows some failures (a delegated role's) wrapped in a plain Error: read its message.
  const wrapped = /signed by \d+\/\d+ keys/.test(message) ? 'signature' : /expired/i.test(message) ? 'expired' : /version/i.test(message) ? 'rollback' : null;
  return new TufRefusal(BY_CLASS[className] ?? wrapped ?? 'metadata', message);
}
