import React, { useEffect, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import Link from '@docusaurus/Link';
import { useHistory } from '@docusaurus/router';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import { warmUp } from '@site/src/search/engine';
import { NoResults, SearchFailed, SUGGESTIONS } from '@site/src/search/SearchMessages';
import { useSiteSearch } from '@site/src/search/useSiteSearch';
import AskPanel from './AskPanel';
import styles from './styles.module.css';

const SHOWN = 8;

// The search dialog: type to search the local index, arrows and Enter to pick, Escape to close.
export default function SearchModal({ onClose, typedBefore }: { onClose: () => void; typedBefore?: () => string }): React.ReactNode {
  const { siteConfig } = useDocusaurusContext();
  const history = useHistory();
  // What was typed into the stand-in dialog while this code loaded (SearchBar's EarlyDialog).
  // Read after commit, not at render: React may render this while the stand-in is still shown
  // (and still being typed into), and commit it a little later.
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  // Ask mode quotes matching passages for a question; Escape leaves it before closing.
  const [mode, setMode] = useState<'search' | 'ask'>('search');
  const [question, setQuestion] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const state = useSiteSearch(mode === 'search' ? query : '');
  const hits = state.status === 'done' ? state.hits : [];

  useEffect(() => {
    const early = typedBefore?.() ?? '';
    if (early) setQuery(early);
    const field = input.current;
    field?.focus();
    // Keep the caret after what was typed before this code loaded.
    if (field) field.value = early || field.value;
    field?.setSelectionRange(field.value.length, field.value.length);
    warmUp(siteConfig.baseUrl).catch(() => undefined);
  }, [siteConfig.baseUrl]);

  useEffect(() => setActive(0), [query]);

  const go = (url: string) => {
    onClose();
    history.push(url);
  };

  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      if (mode === 'ask') {
        setMode('search');
        setQuestion('');
        input.current?.focus();
      } else onClose();
    } else if (mode === 'ask') {
      if (event.key === 'Enter' && query.trim()) {
        event.preventDefault();
        setQuestion(query.trim());
        setQuery('');
      }
    } else if (event.key === 'ArrowDown') {
      event.preventDefault();
      setActive((i) => Math.min(i + 1, Math.min(hits.length, SHOWN) - 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((i) => Math.max(i - 1, 0));
    } else if (event.key === 'Enter' && hits[active]) {
      event.preventDefault();
      go(hits[active].url);
    }
  };

  const allUrl = `/search?q=${encodeURIComponent(query.trim())}`;

  return createPortal(
    <div className={styles.backdrop} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div className={styles.dialog} role="dialog" aria-modal="true" aria-label="Search docs" onKeyDown={onKeyDown}>
        <input
          ref={input}
          className={styles.input}
          type="search"
          placeholder={mode === 'ask' ? (question ? 'Ask another question...' : 'Ask a question') : 'Search docs'}
          aria-label={mode === 'ask' ? 'Ask a question' : 'Search docs'}
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <div className={styles.body}>
          {mode === 'ask' && question && (
            <>
              <p className={styles.hint}><strong>{question}</strong></p>
              <AskPanel question={question} onPick={onClose} onSuggest={(q) => { setMode('search'); setQuery(q); }} />
            </>
          )}
          {mode === 'ask' && !question && <p className={styles.hint}>Type a question and press Enter. Esc returns to search.</p>}
          {mode === 'search' && state.status === 'idle' && (
            <p className={styles.hint}>
              Try searching for{' '}
              {SUGGESTIONS.map((s, i) => (
                <React.Fragment key={s}>
                  {i > 0 && ', '}
                  <button type="button" className="search-suggestion" onClick={() => setQuery(s)}>{s}</button>
                </React.Fragment>
              ))}
            </p>
          )}
          {state.status === 'loading' && <p className={styles.hint}>Searching...</p>}
          {state.status === 'error' && <SearchFailed />}
          {state.status === 'done' && hits.length === 0 && <NoResults query={query.trim()} onSuggest={setQuery} />}
          {hits.length > 0 && (
            <ul className={styles.hits} role="listbox">
              {hits.slice(0, SHOWN).map((hit, i) => (
                <li key={hit.url} role="option" aria-selected={i === active} className={i === active ? styles.active : undefined}>
                  <Link to={hit.url} onClick={onClose} onMouseEnter={() => setActive(i)}>
                    <span className="search-section">{hit.section}</span>
                    <span className={styles.hitTitle}>{hit.title}</span>
                    {hit.context && <span className={styles.hitPage}>{hit.context}</span>}
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </div>
        {mode === 'search' && (
          <div className={styles.footer}>
            <button type="button" className="search-suggestion" onClick={() => { setMode('ask'); setQuestion(query.trim()); setQuery(''); input.current?.focus(); }}>
              {query.trim() ? `Ask about “${query.trim()}”` : 'Ask a question'}
            </button>
          </div>
        )}
        {mode === 'search' && hits.length > 0 && (
          <div className={styles.footer}>
            <Link to={allUrl} onClick={onClose}>
              See all {hits.length} results
            </Link>
            <span className={styles.keys}><kbd>↑</kbd><kbd>↓</kbd> to move, <kbd>Enter</kbd> to open, <kbd>Esc</kbd> to close</span>
          </div>
        )}
      </div>
    </div>,
    document.body,
  );
}
