import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CanopyApiError } from '@canopy/sdk/browser';
import { ApiErrorAlert } from '../../src/ui/ApiError';
import { entryInWords, errorInWords, fieldWords } from '../../src/ui/error-words';
import { renderWithTheme } from './render';

describe('API errors in words', () => {
  it('names the field as a person would', () => {
    expect(fieldWords('name')).toBe('Name');
    expect(fieldWords('cohort_prn')).toBe('Cohort');
    expect(fieldWords('jitp.product_name')).toBe('Product name');
    expect(fieldWords('tags[2]')).toBe('Tags');
  });

  it('says each kind of problem the API answers in a sentence', () => {
    expect(entryInWords({ code: 'validation', context: { field: 'name', reason: 'taken' } })).toBe('Name is already taken.');
    expect(entryInWords({ code: 'validation', context: { field: 'name', reason: 'too_long', max: 128 } })).toBe('Name is too long (at most 128).');
    expect(entryInWords({ code: 'validation', context: { field: 'expires_at', reason: 'in_past' } })).toBe('Expires at must be in the future.');
    expect(entryInWords({ code: 'validation', context: { field: 'url', reason: 'something_new' } })).toBe('Url is not accepted (something new).');
    expect(entryInWords({ code: 'parameter', context: { parameter: 'limit', reason: 'invalid_value' } })).toBe('The limit parameter has a value that is not accepted here.');
    expect(entryInWords({ code: 'not_found', context: { resource: 'signing_key' } })).toMatch(/^The signing key was not found/);
    expect(entryInWords({ code: 'unauthorized', context: { required_role: 'admin' } })).toBe('Your role may not do this: it needs the admin role.');
    expect(entryInWords({ code: 'invalid_state_transition', context: { current_state: 'approved', required_state: 'pending' } })).toBe('Not while it is approved: it must be pending first.');
    expect(entryInWords({ code: 'product_has_active_devices' })).toBe('Product has active devices.');
    expect(errorInWords([{ code: 'validation', context: { field: 'name', reason: 'required' } }, { code: 'validation', context: { field: 'value', reason: 'invalid_format' } }])).toEqual([
      'Name is required.',
      'Value is not in the expected format.',
    ]);
  });

  it('shows the sentence first and the code beside it', () => {
    const error = new CanopyApiError({ status: 422, errors: [{ code: 'validation', context: { field: 'name', reason: 'taken' } }], method: 'POST', path: '/products' });
    renderWithTheme(<ApiErrorAlert error={error} title="Could not create the product" />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('Name is already taken.');
    expect(alert.textContent).toMatch(/422 validation.*name \(taken\)/);
  });
});
