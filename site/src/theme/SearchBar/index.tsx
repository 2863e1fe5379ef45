import React, { useCallback, useState } from 'react';
import BrowserOnly from '@docusaurus/BrowserOnly';
import { useSearchHotkeys } from './useSearchHotkeys';
import styles from './styles.module.css';

import SearchModal from './SearchModal';

// Replaces the local-search plugin's inline box with a modal that follows the spec's
// hotkeys and messages; the plugin still builds the index and serves /search. The modal is
// bundled eagerly (a few kB) so keys typed right after Ctrl+K are not lost to a chunk load.

function MagnifierIcon(): React.ReactNode {
  return (
    <svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true">
      <circle cx="8.5" cy="8.5" r="6" fill="none" stroke="currentColor" strokeWidth="2" />
      <path d="M13 13l5 5" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

function SearchButton(): React.ReactNode {
  const [open, setOpen] = useState(false);
  const show = useCallback(() => setOpen(true), []);
  useSearchHotkeys(show);
  const mac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
  return (
    <>
      <button type="button" className={styles.button} onClick={show} aria-label="Search docs">
        <MagnifierIcon />
        <span className={styles.label}>Search docs</span>
        <kbd className={styles.shortcut}>{mac ? '⌘' : 'Ctrl'} K</kbd>
      </button>
      {open && <SearchModal onClose={() => setOpen(false)} />}
    </>
  );
}

export default function SearchBar(): React.ReactNode {
  return (
    <BrowserOnly fallback={<button type="button" className={styles.button} aria-label="Search docs"><MagnifierIcon /><span className={styles.label}>Search docs</span></button>}>
      {() => <SearchButton />}
    </BrowserOnly>
  );
}
