/**
 * The table of a resource list screen: loading skeleton, the API's error, an empty state that
 * says what to do next, the rows, and (for users who may write) a confirmed delete per row.
 * Every list screen of the console uses it, so they all load, fail and delete alike.
 */
import { Table, VisuallyHidden } from '@mantine/core';
import type { QueryKey, UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { DeleteByPrnPath, DeleteTarget } from '../api/paths';
import { useSession } from '../api/session-context';
import { ApiErrorAlert } from './ApiError';
import { ConfirmButton } from './ConfirmButton';
import { EmptyState, LoadingRows } from './States';
import { useDeleteResource } from './useDeleteResource';

export interface Column<T> {
  header: string;
  cell(item: T): ReactNode;
  /** The header is for screen readers only (a column of buttons needs no visible title). */
  hiddenHeader?: boolean;
  /** data-testid of the column's cells. */
  testId?: string;
}

export interface DeleteAction<T> {
  /** The path of its DELETE by the item's prn, e.g. `/products/{prn}`. */
  path?: DeleteByPrnPath;
  /** The DELETE of an item when it needs more than its prn (a member of a group). */
  target?(item: T): DeleteTarget;
  question(item: T): string;
  done(item: T): string;
  /** The button's word, when the API's DELETE is not a deletion to the user (Revoke for a key). */
  verb?: string;
  /** What the cell shows instead of the button for an item already removed that way (a revoked key). */
  instead?(item: T): ReactNode;
  /** data-testid of the action cells. */
  testId?: string;
  /** Offered to every role, not only to those who may write (one's own sessions). */
  anyRole?: boolean;
}

export interface ResourceTableProps<T> {
  label: string;
  query: UseQueryResult<T[]>;
  /** The query key to refetch after a delete. */
  listKey: QueryKey;
  columns: Column<T>[];
  empty: { title: string; text: ReactNode };
  /** Only items with a prn can be deleted (`DELETE /products/{prn}`). */
  remove?: T extends { prn: string } ? DeleteAction<T> : never;
  /** The row's React key; the prn by default (for rows that have none, such as delivery attempts). */
  rowKey?(item: T): string;
  rowTestId?: string;
  minWidth?: number;
  /** Skeleton rows while loading: about as many as the list usually has. */
  loadingRows?: number;
}

const prnOf = (item: unknown) => (item as { prn: string }).prn;

export function ResourceTable<T>({ label, query, listKey, columns, empty, remove, rowKey = prnOf, rowTestId, minWidth = 520, loadingRows }: ResourceTableProps<T>) {
  const { canWrite } = useSession();
  const action = remove as DeleteAction<T & { prn: string }> | undefined;
  const target = action?.target ?? (action?.path ? (item: T & { prn: string }): DeleteTarget => ({ path: action.path!, params: { prn: item.prn } }) : null);
  const deleteItem = useDeleteResource<T & { prn: string }>(target, listKey, (item) => action?.done(item) ?? '');
  const withDelete = Boolean(action && (canWrite || action.anyRole));
  if (query.error) return <ApiErrorAlert error={query.error} />;
  if (query.isPending) return <LoadingRows rows={loadingRows} label={`Loading ${label.toLowerCase()}`} />;
  if (query.data.length === 0) return <EmptyState title={empty.title}>{empty.text}</EmptyState>;
  return (
    <Table.ScrollContainer minWidth={minWidth}>
      <Table aria-label={label}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((column) => (
              <Table.Th key={column.header}>{column.hiddenHeader ? <VisuallyHidden>{column.header}</VisuallyHidden> : column.header}</Table.Th>
            ))}
            {withDelete && <Table.Th>Actions</Table.Th>}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {query.data.map((item) => (
            <Table.Tr key={rowKey(item)} data-testid={rowTestId}>
              {columns.map((column) => (
                <Table.Td key={column.header} data-testid={column.testId}>
                  {column.cell(item)}
                </Table.Td>
              ))}
              {withDelete && action && <DeleteCell item={item as T & { prn: string }} action={action} onConfirm={deleteItem.mutate} />}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}

function DeleteCell<T extends { prn: string }>({ item, action, onConfirm }: { item: T; action: DeleteAction<T>; onConfirm(item: T): void }) {
  const instead = action.instead?.(item);
  return (
    <Table.Td data-testid={action.testId}>
      {instead ?? (
        <ConfirmButton size="xs" question={action.question(item)} onConfirm={() => onConfirm(item)}>
          {action.verb ?? 'Delete'}
        </ConfirmButton>
      )}
    </Table.Td>
  );
}
