// The one place that loads @peculiar/x509. The library's ASN.1 schema decorators need
// reflect-metadata loaded first, and it signs through a WebCrypto provider that must be set
// before any certificate is built; doing both here means no other module can get the order wrong.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

// Node's WebCrypto is the standard one; the cast bridges the Node and DOM typings of it.
x509.cryptoProvider.set(webcrypto as never);

export { x509 };
