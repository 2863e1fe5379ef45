import React, { Suspense, lazy, useCallback, useEffect, useState } from 'react';
import { useSearchHotkeys } from './useSearchHotkeys';
import styles from './styles.module.css';

// Replaces the local-search plugin's inline box with a modal that follows the spec's hotkeys
// and messages; the plugin still builds the index and serves /search. Only the button and the
// hotkeys are in the first-load bundle: the modal (with the search client and ask mode) is its
// own chunk, fetched once the page is idle or the reader reaches for search, whichever is first.
const loadModal = () => import('./SearchModal');
const SearchModal = lazy(loadModal);
// A failed prefetch is not an error: opening the modal fetches the chunk again.
const prefetchModal = () => void loadModal().catch(() => undefined);

function MagnifierIcon(): React.ReactNode {
  return (
    <svg width="16" height="16" viewBox="0 0 20 20" aria-hidden="true">
      <circle cx="8.5" cy="8.5" r="6" fill="none" stroke="currentColor" strokeWidth="2" />
      <path d="M13 13l5 5" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
    </svg>
  );
}

/** Fetches the modal's chunk when the browser is idle, so the first Ctrl+K opens at once. */
function usePrefetchWhenIdle(): void {
  useEffect(() => {
    if (typeof window.requestIdleCallback === 'function') {
      const handle = window.requestIdleCallback(prefetchModal, { timeout: 5000 });
      return () => window.cancelIdleCallback(handle);
    }
    const timer = window.setTimeout(prefetchModal, 2000);
    return () => window.clearTimeout(timer);
  }, []);
}

export default function SearchBar(): React.ReactNode {
  const [open, setOpen] = useState(false);
  // The server render cannot know the platform; the label is corrected after hydration, and
  // only on Apple devices, so the button never changes for everyone else.
  const [mac, setMac] = useState(false);
  const show = useCallback(() => setOpen(true), []);
  useSearchHotkeys(show);
  usePrefetchWhenIdle();
  useEffect(() => setMac(/Mac|iPhone|iPad/.test(navigator.platform)), []);
  return (
    <>
      <button type="button" className={styles.button} onClick={show} onPointerEnter={prefetchModal} onFocus={prefetchModal} aria-label="Search docs">
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
