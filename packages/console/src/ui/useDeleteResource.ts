/**
 * The delete action of a resource list: DELETE /{collection}/{prn}, a success notification, and a
 * refetch of the list; a refusal shows the API's error. Every list screen deletes the same way.
 */
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useSession } from '../api/session-context';
import { notifyFailure, notifySuccess } from './notify';

export function useDeleteResource<T extends { prn: string }>(collection: string, listKey: QueryKey, doneMessage: (item: T) => string) {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (item: T) => client.request('DELETE', `/${collection}/${encodeURIComponent(item.prn)}`),
    onSuccess: (_, item) => {
      notifySuccess(doneMessage(item));
      void queries.invalidateQueries({ queryKey: listKey });
    },
    onError: notifyFailure,
  });
}
