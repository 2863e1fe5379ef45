/** TUF `expires` values: UTC, whole seconds, `Z` (what the spec and tuf-js expect). */
export function tufExpiry(now: Date, seconds: number): string {
  return new Date(Math.floor(now.getTime() / 1000) * 1000 + seconds * 1000).toISOString().replace('.000Z', 'Z');
}
