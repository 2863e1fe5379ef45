/** TUF helpers shared by the server, the CLI and the daemon (Node only). */
export * from './keys';
export * from './expiry';
export * from './offline';
