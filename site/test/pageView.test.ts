import { describe, expect, it } from 'vitest';
import { isNewView, pageView } from '../src/analytics/pageView';

const at = (pathname: string, search = '', hash = '') => ({ pathname, search, hash });

describe('page-view analytics', () => {
  it('counts the first load and any change of path, query or hash', () => {
    expect(isNewView(at('/overview'), null)).toBe(true);
    expect(isNewView(at('/overview'), at('/'))).toBe(true);
    expect(isNewView(at('/search', '?q=a'), at('/search', '?q=b'))).toBe(true);
    expect(isNewView(at('/overview', '', '#parts'), at('/overview'))).toBe(true);
  });

  it('does not count a re-render of the same location', () => {
    expect(isNewView(at('/overview', '?x=1', '#a'), at('/overview', '?x=1', '#a'))).toBe(false);
  });

  it('always asks for IP anonymisation and names the previous path as referrer', () => {
    const view = pageView(at('/policies', '?a=1', '#b'), at('/overview'), 'Policies | Canopy Docs', 'https://elsewhere.example/');
    expect(view).toEqual({
      type: 'page_view',
      path: '/policies',
      query: '?a=1',
      hash: '#b',
      title: 'Policies | Canopy Docs',
      referrer: '/overview',
      anonymize_ip: true,
    });
  });
});
