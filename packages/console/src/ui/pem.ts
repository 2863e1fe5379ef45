/** The admin API takes certificates as base64 of the PEM text (what `base64 -w0 file.pem` prints). */
export function base64OfPem(pem: string): string {
  const bytes = new TextEncoder().encode(pem.trim() + '\n');
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
