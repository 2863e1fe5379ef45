import React from 'react';
import Head from '@docusaurus/Head';
import Link from '@docusaurus/Link';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import SearchBar from '@theme/SearchBar';

// The not-found content: the docs plugin renders it for unknown paths under its catch-all route
// (which sets no title of its own) and @theme/NotFound around it. The title "Page Not Found |
// <site>" is set here so the static 404.html has it too; search and the main sections lead on.
const SECTIONS: [string, string, string][] = [
  ['/overview', 'Overview', 'What Avocado OS and Canopy are and how they fit together.'],
  ['/canopy-core/guides/getting-started', 'Canopy Core: getting started', 'Run a server and release to a device.'],
  ['/canopy-core/tools/admin-api', 'Admin API', 'Every operation of the admin API.'],
  ['/canopy-core/tools/canopy-cli/overview', 'canopy CLI', 'The command-line tool.'],
  ['/avocado-os/guides/getting-started', 'Avocado OS: getting started', 'Build and flash an image.'],
  ['/hardware/support-matrix', 'Supported hardware', 'Boards and what they support.'],
];

export default function NotFoundContent(): React.ReactNode {
  const { siteConfig } = useDocusaurusContext();
  const title = `Page Not Found | ${siteConfig.title}`;
  return (
    <>
      <Head>
        <title>{title}</title>
        <meta property="og:title" content={title} />
        <meta name="robots" content="noindex" />
      </Head>
      <main className="container margin-vert--xl">
          <h1>Page Not Found</h1>
          <p>We could not find what you were looking for. Search the documentation, or start from one of the main sections.</p>
          <div className="margin-vert--md">
            <SearchBar />
          </div>
          <ul className="not-found-links">
            {SECTIONS.map(([to, label, text]) => (
              <li key={to}>
                <Link to={to}>{label}</Link>
                <div>{text}</div>
              </li>
            ))}
          </ul>
      </main>
    </>
  );
}
