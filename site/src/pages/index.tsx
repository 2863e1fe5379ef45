import React from 'react';
import Layout from '@theme/Layout';
import Link from '@docusaurus/Link';
import Heading from '@theme/Heading';

// Home page: one entry card per product area, each pointing at that area's overview.
const areas = [
  {
    title: 'Canopy Core',
    to: '/canopy-core/overview',
    text: 'The cloud service: binaries, bundles, releases, cohorts, device identity, tunnels and webhooks, driven through the admin API.',
  },
  {
    title: 'Avocado OS',
    to: '/avocado-os/overview',
    text: 'The embedded Linux distribution built for A/B updates, with the avocado CLI for building, provisioning and sideloading.',
  },
  {
    title: 'Hardware',
    to: '/hardware/support-matrix',
    text: 'Provisioning guides for each supported board and the matrix of what works where.',
  },
  {
    title: 'Tools',
    to: '/canopy-core/tools/canopy-cli/overview',
    text: 'The canopy CLI, the device daemon, the Rust SDK and the admin and device API references.',
  },
];

export default function Home(): React.ReactNode {
  return (
    <Layout title="Home" description="Documentation for Canopy, the device-fleet and over-the-air update platform.">
      <header className="hero hero--canopy">
        <div className="container">
          <Heading as="h1" className="hero__title">
            Canopy documentation
          </Heading>
          <p className="hero__subtitle">
            Build a Linux image, provision a board, and ship signed over-the-air updates to a fleet.
          </p>
          <Link className="button button--primary button--lg" to="/overview">
            Start with the overview
          </Link>
        </div>
      </header>
      <main className="container margin-vert--lg">
        <div className="row">
          {areas.map((area) => (
            <div key={area.to} className="col col--3 margin-bottom--lg">
              <div className="card padding--md" style={{ height: '100%' }}>
                <Heading as="h2">
                  <Link to={area.to}>{area.title}</Link>
                </Heading>
                <p>{area.text}</p>
              </div>
            </div>
          ))}
        </div>
      </main>
    </Layout>
  );
}
