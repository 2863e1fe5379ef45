/**
 * The create action of a list screen: POST /{collection} with the form's body, a success
 * notification, and a refetch of the list. The refusal stays on the form (CreateForm shows it).
 * `onDone` gets the API's answer too, for what is shown once (a new key, a webhook's secret).
 */
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useSession } from '../api/session-context';
import { notifySuccess } from './notify';

export function useCreateResource<Body, Answer = Record<string, unknown>>(collection: string, listKey: QueryKey, doneMessage: (body: Body) => string, onDone?: (answer: Answer, body: Body) => void) {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (body: Body) => client.request<Answer>('POST', `/${collection}`, { body }),
    onSuccess: (answer, body) => {
      notifySuccess(doneMessage(body));
      onDone?.(answer, body);
      void queries.invalidateQueries({ queryKey: listKey });
    },
  });
}
