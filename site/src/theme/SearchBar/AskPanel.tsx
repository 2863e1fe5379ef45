import React, { useEffect, useState } from 'react';
import Link from '@docusaurus/Link';
import useDocusaurusContext from '@docusaurus/useDocusaurusContext';
import { answer, type Passage } from '@site/src/search/answer';
import { NoResults } from '@site/src/search/SearchMessages';

type State = { status: 'thinking' } | { status: 'answered'; passages: Passage[] } | { status: 'error' };

// Shows the passages that answer a submitted question, and takes local-only feedback.
export default function AskPanel({ question, onPick, onSuggest }: { question: string; onPick: () => void; onSuggest: (q: string) => void }): React.ReactNode {
  const { siteConfig } = useDocusaurusContext();
  const [state, setState] = useState<State>({ status: 'thinking' });
  const [thanked, setThanked] = useState(false);

  useEffect(() => {
    let cancelled = false;
    setState({ status: 'thinking' });
    setThanked(false);
    answer(siteConfig.baseUrl, question).then(
      (passages) => !cancelled && setState({ status: 'answered', passages }),
      () => !cancelled && setState({ status: 'error' }),
    );
    return () => {
      cancelled = true;
    };
  }, [question, siteConfig.baseUrl]);

  if (state.status === 'thinking') return <p>Thinking...</p>;
  if (state.status === 'error') return <p role="alert">Unable to fetch results</p>;
  if (state.passages.length === 0) return <NoResults query={question} onSuggest={onSuggest} />;
  return (
    <div className="ask-answer" aria-live="polite">
      <p>From the documentation:</p>
      {state.passages.map((p) => (
        <blockquote key={p.url}>
          <p>{p.text}</p>
          <Link to={p.url} onClick={onPick}>{p.page}</Link>
        </blockquote>
      ))}
      <p className="ask-note">Answers quote the pages that best match your question. Verify them on the linked pages.</p>
      {thanked ? (
        <p>Thanks for your feedback!</p>
      ) : (
        <p>
          Was this helpful?{' '}
          <button type="button" className="search-suggestion" onClick={() => setThanked(true)}>Yes</button>
          {' / '}
          <button type="button" className="search-suggestion" onClick={() => setThanked(true)}>No</button>
        </p>
      )}
    </div>
  );
}
