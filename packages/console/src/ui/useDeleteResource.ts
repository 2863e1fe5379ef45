/**
 * The delete action of a resource list: the DELETE that `target` names for the item, a success
 * notification, and a refetch of the list; a refusal shows the API's error. Every list screen
 * deletes the same way.
 */
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { DeleteTarget } from '../api/paths';
import { useSession } from '../api/session-context';
import { notifyFailure, notifySuccess } from './notify';

export function useDeleteResource<T>(target: ((item: T) => DeleteTarget) | null, listKey: QueryKey, doneMessage: (item: T) => string) {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: async (item: T) => {
      if (!target) throw new Error('this list has no delete action');
      const { path, params } = target(item);
      // DeleteTarget pairs each path with its own parameters; openapi-fetch cannot see that pairing through the union.
      await client.api.DELETE(path as never, { params: { path: params } } as never);
    },
    onSuccess: (_, item) => {
      notifySuccess(doneMessage(item));
      void queries.invalidateQueries({ queryKey: listKey });
    },
    onError: notifyFailure,
  });
}
