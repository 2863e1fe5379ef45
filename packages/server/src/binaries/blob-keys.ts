/**
 * Where a binary's bytes live in the BlobStore. Parts are keyed by the part row's id (a
 * replaced part never shares a key with its successor); the assembled binary by its revision
 * (a reset never reads the bytes of an earlier attempt). Everything of a binary sits under
 * one prefix, so destroying it is one deletePrefix.
 */
export const binaryPrefix = (binaryId: string) => `binaries/${binaryId}/`;
export const partKey = (binaryId: string, partId: string) => `binaries/${binaryId}/parts/${partId}`;
export const partsPrefix = (binaryId: string) => `binaries/${binaryId}/parts/`;
export const assembledKey = (binaryId: string, revision: number) => `binaries/${binaryId}/binary-r${revision}`;
