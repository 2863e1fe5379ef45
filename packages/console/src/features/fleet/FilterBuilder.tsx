/**
 * The fleet filter: the search language as a list of clauses (field, operator, value) and as raw
 * text. Editing either updates the other; applying sends the text, which also goes to the URL.
 */
import { ActionIcon, Button, Group, Select, Stack, Text, TextInput } from '@mantine/core';
import { lazy, Suspense, useEffect, useState } from 'react';
import { DEVICE_FIELDS, formatSearch, freeText, OPERATOR_LABELS, parseSearch, SearchSyntaxError, UPDATE_STATUSES, type Clause, type Operator } from './search-language';

// Loaded when a release condition is added: the releases' queries stay out of the fleet's first load.
const ReleaseValue = lazy(() => import('./ReleaseValue').then((m) => ({ default: m.ReleaseValue })));

export interface NamedOption {
  value: string;
  label: string;
}

interface Props {
  value: string;
  onApply(search: string): void;
  products?: NamedOption[];
  cohorts?: NamedOption[];
}

function emptyClause(): Clause {
  return { field: 'identifier', operator: '~', value: '' };
}

export function FilterBuilder({ value, onApply, products = [], cohorts = [] }: Props) {
  const [text, setText] = useState(value);
  const [clauses, setClauses] = useState<Clause[]>(() => safeParse(value) ?? []);
  const [syntax, setSyntax] = useState<string | null>(null);

  useEffect(() => {
    setText(value);
    setClauses(safeParse(value) ?? []);
  }, [value]);

  const updateClauses = (next: Clause[]) => {
    setClauses(next);
    setText(formatSearch(next.filter((c) => c.value !== '')));
    setSyntax(null);
  };

  const updateText = (next: string) => {
    setText(next);
    try {
      setClauses(parseSearch(next));
      setSyntax(null);
    } catch (error) {
      const plain = freeText(next);
      if (plain) {
        setClauses(plain);
        setSyntax(null);
        return;
      }
      setSyntax(error instanceof SearchSyntaxError ? syntaxMessage(error) : String(error));
    }
  };

  const apply = () => {
    if (syntax) return;
    // Plain words are sent as the clause they were read as, which the text box then shows.
    const plain = freeText(text);
    onApply(plain ? formatSearch(plain) : text.trim());
  };

  return (
    <Stack gap="xs" component="form" onSubmit={(e) => { e.preventDefault(); apply(); }} aria-label="Device filter">
      {clauses.map((clause, index) => {
        const spec = DEVICE_FIELDS.find((f) => f.field === clause.field) ?? DEVICE_FIELDS[0];
        const set = (patch: Partial<Clause>) => updateClauses(clauses.map((c, i) => (i === index ? { ...c, ...patch } : c)));
        const options = spec.kind === 'prn' ? (spec.field === 'product_prn' ? products : cohorts) : spec.kind === 'status' ? UPDATE_STATUSES.map((s) => ({ value: s, label: s.replace('_', ' ') })) : null;
        return (
          <Group key={index} gap="xs" wrap="wrap" data-testid="filter-clause">
            <Select
              aria-label={`Field of condition ${index + 1}`}
              data={DEVICE_FIELDS.map((f) => ({ value: f.field, label: f.label }))}
              value={clause.field}
              allowDeselect={false}
              w={150}
              onChange={(field) => {
                const next = DEVICE_FIELDS.find((f) => f.field === field)!;
                set({ field: next.field, operator: next.operators[0], value: next.kind === 'boolean' ? true : '' });
              }}
            />
            <Select
              aria-label={`Operator of condition ${index + 1}`}
              data={spec.operators.map((op) => ({ value: op, label: OPERATOR_LABELS[op] }))}
              value={clause.operator}
              allowDeselect={false}
              w={130}
              onChange={(op) => set({ operator: op as Operator })}
            />
            {spec.kind === 'boolean' ? (
              <Select
                aria-label={`Value of condition ${index + 1}`}
                data={['true', 'false']}
                value={String(clause.value)}
                allowDeselect={false}
                w={100}
                onChange={(v) => set({ value: v === 'true' })}
              />
            ) : spec.field === 'reported_release_prn' ? (
              <Suspense fallback={null}>
                <ReleaseValue index={index} value={typeof clause.value === 'string' ? clause.value : null} onChange={(v) => set({ value: v })} />
              </Suspense>
            ) : options ? (
              <Select aria-label={`Value of condition ${index + 1}`} data={options} value={typeof clause.value === 'string' ? clause.value : null} searchable w={220} onChange={(v) => set({ value: v ?? '' })} />
            ) : (
              <TextInput
                aria-label={`Value of condition ${index + 1}`}
                placeholder={spec.kind === 'datetime' ? '2025-06-01T00:00:00Z' : 'value'}
                value={clause.value === null ? '' : String(clause.value)}
                onChange={(e) => set({ value: e.currentTarget.value })}
                w={200}
              />
            )}
            <ActionIcon variant="subtle" color="gray" aria-label={`Remove condition ${index + 1}`} onClick={() => updateClauses(clauses.filter((_, i) => i !== index))}>
              ×
            </ActionIcon>
          </Group>
        );
      })}
      <Group gap="xs">
        <Button variant="default" size="xs" onClick={() => updateClauses([...clauses, emptyClause()])}>
          Add condition
        </Button>
      </Group>
      <TextInput
        label="Search (the admin API's search language)"
        value={text}
        onChange={(e) => updateText(e.currentTarget.value)}
        error={syntax}
        ff="monospace"
        placeholder="tags:'east' and quarantined:false"
      />
      <Group gap="xs">
        <Button type="submit" size="xs" disabled={!!syntax}>
          Apply filter
        </Button>
        {value && (
          <Button size="xs" variant="subtle" onClick={() => onApply('')}>
            Clear
          </Button>
        )}
        <Text size="xs" c="dimmed">
          Copy the text into scripts: it is the `search` parameter of GET /devices.
        </Text>
      </Group>
    </Stack>
  );
}

/** The parser's reason in words, with the clause it concerns. */
function syntaxMessage(error: SearchSyntaxError): string {
  const clause = `“${error.clause}”`;
  if (error.reason === 'invalid_value') return `The value in ${clause} needs quotes, as in identifier:'gw-1'.`;
  if (error.reason === 'malformed_clause') return `${clause} is not a condition: write field, operator and quoted value, as in tags:'east'.`;
  return `${error.reason.replace(/_/g, ' ')} in ${clause}`;
}

function safeParse(text: string): Clause[] | null {
  try {
    return parseSearch(text);
  } catch {
    return null;
  }
}
