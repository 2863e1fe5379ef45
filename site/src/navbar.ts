// Navbar dropdowns exactly as the spec's "Top navigation dropdown targets" (section 2).
// The two unnamed Featured-hardware slots are filled with the Rubik Pi and iCAM-540 pages.
import type { NavbarItem } from '@docusaurus/theme-common';

type Item = { label: string; to: string };
const dropdown = (label: string, items: Item[]): NavbarItem => ({ type: 'dropdown', label, position: 'left', items });

export function navbarItems(webConsoleUrl: string): NavbarItem[] {
  return [
    dropdown('Guides', [
      { label: 'Getting started', to: '/avocado-os/guides/getting-started' },
      { label: 'Hardware in the loop', to: '/avocado-os/guides/hardware-in-the-loop' },
      { label: 'Sideloading', to: '/avocado-os/guides/sideloading' },
    ]),
    dropdown('Overviews', [
      { label: 'Documentation overview', to: '/overview' },
      { label: 'Avocado OS', to: '/avocado-os/overview' },
      { label: 'Canopy Core', to: '/canopy-core/overview' },
    ]),
    dropdown('Core references', [
      { label: 'Remote access tunnels', to: '/canopy-core/reference/remote-access/tunnels' },
      { label: 'Webhooks', to: '/canopy-core/reference/integration-management/webhooks' },
      { label: 'CA certificates', to: '/canopy-core/reference/device-management/ca-certificates' },
    ]),
    dropdown('Featured hardware', [
      { label: 'NXP i.MX 8M Plus', to: '/solutions/nxp/imx8mp' },
      { label: 'Raspberry Pi 5', to: '/solutions/raspberry-pi/raspberry-pi-5' },
      { label: 'NVIDIA Jetson Orin Nano', to: '/solutions/nvidia/jetson-orin-nano' },
      { label: 'Qualcomm Rubik Pi', to: '/solutions/qualcomm/rubik-pi' },
      { label: 'Advantech iCAM-540', to: '/solutions/advantech/icam-540' },
      { label: 'Seeed reTerminal', to: '/solutions/seeed/reterminal' },
      { label: 'View all supported hardware', to: '/hardware/support-matrix' },
    ]),
    dropdown('Tools', [
      { label: 'Avocado CLI', to: '/avocado-os/tools/avocado-cli/overview' },
      { label: 'Avocado Control', to: '/avocado-os/tools/avocado-control' },
      { label: 'meta-avocado', to: '/avocado-os/tools/meta-avocado' },
      { label: 'Admin API', to: '/canopy-core/tools/admin-api' },
      { label: 'Rust SDK', to: '/canopy-core/tools/rust-sdk' },
      { label: 'Canopy CLI', to: '/canopy-core/tools/canopy-cli/overview' },
      { label: 'Canopy daemon', to: '/canopy-core/tools/canopy-daemon/overview' },
      { label: 'Device API', to: '/canopy-core/tools/device-api' },
    ]),
    { href: webConsoleUrl, label: 'Web console', position: 'right' },
  ];
}
