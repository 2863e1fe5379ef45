import React, { Suspense, lazy, useCallback, useEffect, useState } from 'react';
import { useSearchHotkeys } from './useSearchHotkeys';
import styles from './styles.module.css';

// Replaces the local-search plugin's inline box with a modal that follows the spec's hotkeys
// and messages; the plugin still builds the index and serves /search. Only the button and the
// hotkeys are in the first-load bundle: the modal (with the search client and ask mode) is its
// own chunk, which the browser prefetches at low priority (<link rel=prefetch>, not run) and
// which is loaded for real when the reader points at or focuses the button, or presses a hotkey.
const loadModal = () => import(/* webpackPrefetch: true */ './SearchModal');
const SearchModal = lazy(loadModal);
// A failed early load is not an error: opening the modal fetches the chunk again.
const preloadModal = () => void loadModal().catch(() => undefined);

function MagnifierIcon(): React.ReactNode {
  return (
    <svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true">
      <circle cx="8.5" cy="8.5" r="6" fill="none" stroke="currentColor" strokeWidth="2" />
      <path d="M13 13l5 5" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

export default function SearchBar(): React.ReactNode {
  const [open, setOpen] = useState(false);
  // The server render cannot know the platform; the label is corrected after hydration, and
  // only on Apple devices, so the button never changes for everyone else.
  const [mac, setMac] = useState(false);
  const show = useCallback(() => setOpen(true), []);
  useSearchHotkeys(show);
  useEffect(() => setMac(/Mac|iPhone|iPad/.test(navigator.platform)), []);
  return (
    <>
      <button type="button" className={styles.button} onClick={show} onPointerEnter={preloadModal} onFocus={preloadModal} aria-label="Search docs">
        <MagnifierIcon />
        <span className={styles.label}>Search docs</span>
        <kbd className={styles.shortcut}>{mac ? '⌘' : 'Ctrl'} K</kbd>
      </button>
      {open && (
        <Suspense fallback={null}>
          <SearchModal onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}
