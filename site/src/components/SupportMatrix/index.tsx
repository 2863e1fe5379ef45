import React from 'react';
import Link from '@docusaurus/Link';
import { FEATURE_LABELS, MEDIA_LABELS, boards } from '../boards';

// The support matrix is rendered from data/boards.json so it cannot disagree with the guides.
export default function SupportMatrix(): React.ReactNode {
  const features = Object.entries(FEATURE_LABELS) as [keyof (typeof boards)[number]['features'], string][];
  return (
    <div className="support-matrix">
    <table>
      <thead>
        <tr>
          <th>Board</th>
          <th>Avocado OS target</th>
          <th>Provisioning</th>
          {features.map(([key, label]) => <th key={key}>{label}</th>)}
        </tr>
      </thead>
      <tbody>
        {boards.map((b) => (
          <tr key={`${b.vendor}/${b.slug}`}>
            <td>
              {b.hardware ? <Link to={`/hardware/${b.vendor}/${b.slug}/provision`}>{b.vendorName} {b.name}</Link> : `${b.vendorName} ${b.name}`}
            </td>
            <td><code>{b.target}</code></td>
            <td>{MEDIA_LABELS[b.media]}</td>
            {features.map(([key]) => <td key={key}>{b.features[key] ? 'Yes' : 'No'}</td>)}
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}
