import { describe, expect, it } from 'vitest';
import { isProse, keywords } from '../src/search/answer';

describe('ask mode helpers', () => {
  it('keeps the meaningful words of a question', () => {
    expect(keywords('How do I roll a webhook secret?')).toBe('roll webhook secret');
  });

  it('quotes prose, not tables or code', () => {
    expect(isProse('The response shows the new secret. Deploy it to your receiver within that window.')).toBe(true);
    expect(isProse('canopy webhooks roll-secret [options]')).toBe(false);
    expect(isProse('Field Notes url Required; https:// only, at most 1028 characters. description 1 to 256 characters.')).toBe(false);
  });
});
