import type { Config } from '@docusaurus/types';
import type * as Preset from '@docusaurus/preset-classic';
import { navbarItems } from './src/navbar';

// Build-time settings come from the environment so one build recipe serves every deployment.
// The site's server sends /web-console on to the console beside it, whatever its port
// (packages/server/src/site/web-console-link.ts); set the variable to link elsewhere at build time.
const webConsoleUrl = process.env.CANOPY_WEB_CONSOLE_URL ?? 'pathname:///web-console';
const analyticsEndpoint = process.env.CANOPY_ANALYTICS_ENDPOINT ?? '';
// Changing this id re-shows the bar to readers who dismissed the previous one.
const announcementId = process.env.CANOPY_ANNOUNCEMENT_ID ?? 'docs-migration-2025';

const config: Config = {
  title: 'Canopy Docs',
  titleDelimiter: '|',
  tagline: 'Device fleets and over-the-air updates',
  url: process.env.CANOPY_SITE_URL ?? 'https://docs.canopy.example',
  baseUrl: '/',
  trailingSlash: false,
  onBrokenLinks: 'throw',
  onBrokenAnchors: 'throw',
  onDuplicateRoutes: 'throw',
  // The banner's check is an extra inline script on every page, for a misconfiguration that
  // the build tests would catch (every route is loaded in a browser).
  baseUrlIssueBanner: false,
  favicon: 'img/favicon.svg',
  i18n: { defaultLocale: 'en', locales: ['en'] },
  // .md files are plain CommonMark (braces and angle brackets are text); .mdx files may use JSX.
  markdown: { format: 'detect', hooks: { onBrokenMarkdownLinks: 'throw' } },
  future: {
    // v4 defaults, except CSS cascade layers: with them Infima's variables outrank custom.css.
    v4: {
      removeLegacyPostBuildHeadAttribute: true,
      useCssCascadeLayers: false,
      siteStorageNamespacing: false,
      fasterByDefault: true,
      mdx1CompatDisabledByDefault: true,
    },
    faster: true,
  },
  // Plain keys (no per-site suffix) so the stored items are the ones the privacy page lists.
  storage: { type: 'localStorage', namespace: false },
  customFields: { analyticsEndpoint, webConsoleUrl },
  // Docusaurus itself deletes a stored colour-mode choice when disableSwitch is set.
  clientModules: [
    './src/clientModules/progressBar.ts',
    './src/clientModules/imageZoom.ts',
    './src/clientModules/analytics.ts',
    './src/clientModules/idlePrefetch.ts',
  ],
  presets: [
    [
      'classic',
      {
        docs: {
          routeBasePath: '/',
          sidebarPath: './sidebars.ts',
          breadcrumbs: true,
          showLastUpdateTime: false,
        },
        blog: false,
        pages: {},
        theme: { customCss: './src/css/custom.css' },
        sitemap: { changefreq: 'weekly', priority: 0.5 },
      } satisfies Preset.Options,
    ],
  ],
  plugins: [
    './src/plugins/progressBarShim.ts',
    './src/plugins/prismOnDemand.ts',
    './src/plugins/lazyRouteComponents.ts',
    './src/plugins/splitStartup.ts',
    './src/plugins/apiDocumentsServerOnly.ts',
    ['./src/plugins/announcementReset.ts', { id: announcementId }],
  ],
  themes: [
    [
      '@easyops-cn/docusaurus-search-local',
      {
        hashed: true,
        indexDocs: true,
        indexPages: true,
        indexBlog: false,
        docsRouteBasePath: '/',
        language: ['en'],
        highlightSearchTermsOnTargetPage: false,
        searchResultLimits: 8,
        explicitSearchResultPath: true,
        // Our own modal (src/theme/SearchBar) handles the hotkeys.
        searchBarShortcut: false,
      },
    ],
  ],
  themeConfig: {
    colorMode: { defaultMode: 'light', disableSwitch: true, respectPrefersColorScheme: false },
    announcementBar: {
      id: announcementId,
      content:
        'The documentation is under active migration: some content may be temporarily unavailable.',
      isCloseable: true,
    },
    tableOfContents: { minHeadingLevel: 2, maxHeadingLevel: 3 },
    docs: { sidebar: { hideable: true, autoCollapseCategories: false } },
    navbar: {
      title: 'Canopy Docs',
      hideOnScroll: true,
      logo: { alt: 'Canopy', src: 'img/logo.svg' },
      items: navbarItems(webConsoleUrl),
    },
    footer: {
      style: 'light',
      links: [
        { label: 'Overview', to: '/overview' },
        { label: 'Support matrix', to: '/hardware/support-matrix' },
        { label: 'Policies', to: '/policies' },
        { label: 'Privacy', to: '/policies/privacy' },
      ],
      copyright: '© 2025 Canopy contributors',
    },
    // Prism already ships json, yaml and rust; only the shell and TOML grammars are added.
    prism: { additionalLanguages: ['bash', 'toml'] },
  } satisfies Preset.ThemeConfig,
};

export default config;
