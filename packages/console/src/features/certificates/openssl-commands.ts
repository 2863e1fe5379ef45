/**
 * The openssl commands that make a CA's verification certificate: a certificate whose CN is the
 * verification code, signed by the CA's key (what POST /ca_certificates checks). The same steps
 * as the docs' CA registration guide; the server's tests run them with the real openssl CLI.
 */
export function verificationCommands(code: string): string {
  return [
    'openssl ecparam -genkey -name prime256v1 -noout -out verification.key',
    `openssl req -new -key verification.key -subj "/CN=${code}" -out verification.csr`,
    'openssl x509 -req -in verification.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 30 -sha256 -out verification.pem',
  ].join('\n');
}
