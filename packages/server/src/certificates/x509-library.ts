// The one place that loads @peculiar/x509. The library's ASN.1 schema decorators need
// reflect-metadata loaded first, and it signs through a WebCrypto provider that must be set
// before any certificate is built; doing both here means no other module can get the order wrong.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto);

export { x509 };
