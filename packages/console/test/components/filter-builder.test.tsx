import { fireEvent, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { FilterBuilder } from '../../src/features/fleet/FilterBuilder';
import { renderWithTheme } from './render';

const rawBox = () => screen.getByLabelText("Search (the admin API's search language)") as HTMLInputElement;

describe('FilterBuilder', () => {
  it('shows the URL\'s search as clauses and as text', () => {
    renderWithTheme(<FilterBuilder value="identifier~'gw' and quarantined:true" onApply={() => {}} />);
    expect(screen.getAllByTestId('filter-clause')).toHaveLength(2);
    expect((screen.getByLabelText('Value of condition 1') as HTMLInputElement).value).toBe('gw');
    expect(rawBox().value).toBe("identifier~'gw' and quarantined:true");
  });

  it('writes the text from the clauses as they are edited, and applies it', () => {
    const onApply = vi.fn();
    renderWithTheme(<FilterBuilder value="" onApply={onApply} />);
    fireEvent.click(screen.getByText('Add condition'));
    fireEvent.change(screen.getByLabelText('Value of condition 1'), { target: { value: "it's" } });
    expect(rawBox().value).toBe("identifier~'it\\'s'");
    fireEvent.click(screen.getByText('Apply filter'));
    expect(onApply).toHaveBeenCalledWith("identifier~'it\\'s'");
  });

  it('turns typed text into clauses, and refuses to apply text that does not parse', () => {
    const onApply = vi.fn();
    renderWithTheme(<FilterBuilder value="" onApply={onApply} />);
    fireEvent.change(rawBox(), { target: { value: "tags:'east' and target~'arm'" } });
    expect(screen.getAllByTestId('filter-clause')).toHaveLength(2);
    fireEvent.change(rawBox(), { target: { value: "tags:'east" } });
    expect(screen.getByText(/unterminated string/)).toBeTruthy();
    expect((screen.getByText('Apply filter').closest('button') as HTMLButtonElement).disabled).toBe(true);
    expect(onApply).not.toHaveBeenCalled();
  });

  it('applies plain words as "identifier contains", not as a malformed clause', () => {
    const onApply = vi.fn();
    renderWithTheme(<FilterBuilder value="" onApply={onApply} />);
    fireEvent.change(rawBox(), { target: { value: 'gw-alpha' } });
    expect(screen.getAllByTestId('filter-clause')).toHaveLength(1);
    fireEvent.click(screen.getByText('Apply filter'));
    expect(onApply).toHaveBeenCalledWith("identifier~'gw-alpha'");
  });
});
