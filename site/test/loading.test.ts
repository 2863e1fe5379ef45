import React from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import Loading from '../src/theme/Loading';

const noop = () => undefined;
const render = (props: { error?: unknown; retry: () => void; pastDelay: boolean }) =>
  renderToStaticMarkup(React.createElement(Loading, props));

describe('lazy page loading', () => {
  it('shows nothing during the first 200 ms (the loader has not passed its delay)', () => {
    expect(render({ pastDelay: false, retry: noop })).toBe('');
  });

  it('shows a spinner once past the delay', () => {
    const html = render({ pastDelay: true, retry: noop });
    expect(html).toContain('aria-busy="true"');
    expect(html).toContain('canopy-spinner');
  });

  it('shows the error text and a Retry button that retries when loading fails', () => {
    let retried = 0;
    const props = { error: new Error('Loading chunk 42 failed.'), pastDelay: true, retry: () => { retried += 1; } };
    const html = render(props);
    expect(html).toContain('Loading chunk 42 failed.');
    expect(html).toMatch(/<button[^>]*>Retry<\/button>/);
    expect(html).not.toContain('canopy-spinner');
    // The element tree the component returns: its button's click handler is the loader's retry.
    const tree = Loading(props) as React.ReactElement<{ children: React.ReactElement<{ onClick?: () => void }>[] }>;
    const button = React.Children.toArray(tree.props.children).find(
      (child) => React.isValidElement(child) && child.type === 'button',
    ) as React.ReactElement<{ onClick: () => void }>;
    button.props.onClick();
    expect(retried).toBe(1);
  });
});
