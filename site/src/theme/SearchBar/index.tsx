import React, { Suspense, lazy, useCallback, useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useSearchHotkeys } from './useSearchHotkeys';
import styles from './styles.module.css';

// Replaces the local-search plugin's inline box with a modal that follows the spec's hotkeys
// and messages; the plugin still builds the index and serves /search. Only the button and the
// hotkeys are in the first-load bundle: the modal (with the search client and ask mode) is its
// own chunk, which the browser prefetches at low priority (<link rel=prefetch>, not run) and
// which is loaded for real when the reader points at or focuses the button, or presses a hotkey.
const loadModal = () => import(/* webpackPrefetch: true */ './SearchModal');
// With no network the chunk itself may not load: then the dialog says so, in the spec's words,
// instead of crashing the page. A new lazy component per opening retries the load next time.
const lazyModal = () => lazy(() => loadModal().catch(() => import('./ModalLoadFailed')));
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

/**
 * While the modal's code loads, a plain dialog with a focused input stands in for it, so what the
 * reader types right after Ctrl+K lands in an input (and is handed to the modal), not on the page.
 */
function EarlyDialog({ typed }: { typed: React.MutableRefObject<string> }): React.ReactNode {
  return createPortal(
    <div className={styles.backdrop}>
      <div className={styles.dialog} role="dialog" aria-modal="true" aria-label="Search docs">
        <input
          autoFocus
          className={styles.input}
          type="search"
          placeholder="Search docs"
          aria-label="Search docs"
          defaultValue={typed.current}
          onInput={(e) => (typed.current = e.currentTarget.value)}
        />
      </div>
    </div>,
    document.body,
  );
}

/** Keeps the page behind an open dialog from scrolling (wheel, touch, Space, arrows). */
function useScrollLock(locked: boolean): void {
  useEffect(() => {
    if (!locked) return undefined;
    const html = document.documentElement;
    const previous = [html.style.overflow, document.body.style.overflow];
    html.style.overflow = 'hidden';
    document.body.style.overflow = 'hidden';
    return () => {
      [html.style.overflow, document.body.style.overflow] = previous;
    };
  }, [locked]);
}

export default function SearchBar(): React.ReactNode {
  const [open, setOpen] = useState(false);
  const typed = useRef('');
  const [SearchModal, setSearchModal] = useState(lazyModal);
  useScrollLock(open);
  // The server render cannot know the platform; the label is corrected after hydration, and
  // only on Apple devices, so the button never changes for everyone else.
  const [mac, setMac] = useState(false);
  const show = useCallback(() => {
    typed.current = '';
    setOpen(true);
  }, []);
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
        <Suspense fallback={<EarlyDialog typed={typed} />}>
          <SearchModal
            // Read when the modal mounts, not now: the reader may still be typing into EarlyDialog.
            typedBefore={() => typed.current}
            onClose={() => {
              typed.current = '';
              setOpen(false);
              setSearchModal(lazyModal);
            }}
          />
        </Suspense>
      )}
    </>
  );
}
