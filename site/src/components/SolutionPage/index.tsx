import React from 'react';
import Layout from '@theme/Layout';
import Link from '@docusaurus/Link';
import Heading from '@theme/Heading';
import { FEATURE_LABELS, findBoard } from '../boards';

// Marketing page for one board: why to build on it with Canopy and where to start.
export default function SolutionPage({ vendor, slug }: { vendor: string; slug: string }): React.ReactNode {
  const b = findBoard(vendor, slug);
  const title = `${b.vendorName} ${b.name}`;
  return (
    <Layout title={title} description={b.pitch}>
      <header className="hero hero--canopy">
        <div className="container">
          <Heading as="h1" className="hero__title">{title} with Canopy</Heading>
          <p className="hero__subtitle">{b.pitch}</p>
          <Link className="button button--primary button--lg margin-right--md" to={b.hardware ? `/hardware/${b.vendor}/${b.slug}/provision` : '/avocado-os/guides/getting-started'}>
            {b.hardware ? 'Provision this board' : 'Get started with Avocado OS'}
          </Link>
          <Link className="button button--secondary button--lg" to="/hardware/support-matrix">Compare boards</Link>
        </div>
      </header>
      <main className="container margin-vert--lg">
        <div className="row">
          <div className="col col--6">
            <Heading as="h2">Built for</Heading>
            <ul>{b.useCases.map((u) => <li key={u}>{u}</li>)}</ul>
            <Heading as="h2">The hardware</Heading>
            <p>
              The {b.name} is {/^[aeio]/i.test(b.kind) ? 'an' : 'a'} {b.kind} built on the {b.soc}. Avocado OS supports it as the <code>{b.target}</code> target and
              installs to its {b.storage}.
            </p>
          </div>
          <div className="col col--6">
            <Heading as="h2">What you get</Heading>
            <ul>
              {Object.entries(FEATURE_LABELS).map(([key, label]) => (
                <li key={key}>{b.features[key as keyof typeof b.features] ? '✔' : '—'} {label}</li>
              ))}
              <li>✔ Signed bundles, phased releases and cohorts from <Link to="/canopy-core/overview">Canopy Core</Link></li>
            </ul>
            <p>
              Every device gets its own client certificate, checks in over the mutual-TLS device API, and installs only binaries
              whose Ed25519 signatures match keys you registered.
            </p>
          </div>
        </div>
      </main>
    </Layout>
  );
}
