/** The network tools the data plane drives (wireguard-go, wg, ip), run without a shell: shared with the daemon. */
export { run, wgSetconf } from '@canopy/sdk/network-tools';
