import React from 'react';
import Layout from '@theme/Layout';
import Link from '@docusaurus/Link';
import Heading from '@theme/Heading';
import { FEATURE_LABELS, MEDIA_LABELS, findBoard } from '../boards';

// Technical one-page summary of a supported board: facts, update path and next steps.
export default function SolutionOverview({ vendor, slug }: { vendor: string; slug: string }): React.ReactNode {
  const b = findBoard(vendor, slug);
  const facts: [string, React.ReactNode][] = [
    ['Vendor', b.vendorName],
    ['Type', b.kind],
    ['Processor', b.soc],
    ['Architecture', <code key="arch">{b.arch}</code>],
    ['Avocado OS target', <code key="target">{b.target}</code>],
    ['Install medium', b.storage],
    ['Provisioning method', MEDIA_LABELS[b.media] ?? b.media],
    ['Serial console', b.console],
  ];
  return (
    <Layout title={`${b.name} solution overview`} description={`How Canopy and Avocado OS run on the ${b.vendorName} ${b.name}.`}>
      <main className="container margin-vert--lg">
        <Heading as="h1">{b.vendorName} {b.name}: solution overview</Heading>
        <p>{b.pitch}</p>
        <table>
          <tbody>
            {facts.map(([k, v]) => (
              <tr key={k}><th>{k}</th><td>{v}</td></tr>
            ))}
          </tbody>
        </table>
        <Heading as="h2">How updates reach this board</Heading>
        <ol>
          <li>You build an Avocado OS runtime for <code>{b.target}</code> and upload its images to Canopy as binaries of an artifact version.</li>
          <li>You sign the binaries, group them in a bundle and create a release for the board's cohort.</li>
          <li>The device daemon asks the device API for an update, downloads the manifest's binaries, verifies hashes and signatures, and writes the inactive slot.</li>
          <li>The board reboots into the new slot and falls back to the previous one if the new system does not confirm a healthy boot.</li>
        </ol>
        <Heading as="h2">Supported features</Heading>
        <ul>
          {Object.entries(FEATURE_LABELS).map(([key, label]) => (
            <li key={key}>{label}: {b.features[key as keyof typeof b.features] ? 'supported' : 'not yet supported'}</li>
          ))}
        </ul>
        <Heading as="h2">Next steps</Heading>
        <ul>
          <li><Link to={`/hardware/${b.vendor}/${b.slug}/provision`}>Provision the {b.name}</Link></li>
          {b.solution && <li><Link to={`/solutions/${b.vendor}/${b.solution}`}>Why build on the {b.name}</Link></li>}
          <li><Link to="/canopy-core/guides/getting-started">Send the board its first update</Link></li>
        </ul>
      </main>
    </Layout>
  );
}
