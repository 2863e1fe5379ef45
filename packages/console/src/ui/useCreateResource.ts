/**
 * The create action of a list screen: POST to the collection's path with the form's body, a
 * success notification, and a refetch of the list. The refusal stays on the form (CreateForm
 * shows it). `onDone` gets the API's answer too, for what is shown once (a new key, a webhook's
 * secret). The body and the answer are the generated types of that POST.
 */
import { useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { answerOf } from '../api/lists';
import type { AnswerOf, BodyOf, PathWith } from '../api/paths';
import { useSession } from '../api/session-context';
import { notifySuccess } from './notify';

export function useCreateResource<P extends PathWith<'post'>>(path: P, listKey: QueryKey, doneMessage: (body: BodyOf<P, 'post'>) => string, onDone?: (answer: AnswerOf<P, 'post'>, body: BodyOf<P, 'post'>) => void) {
  const { client } = useSession();
  const queries = useQueryClient();
  return useMutation({
    // openapi-fetch cannot check a path chosen by a type parameter; this hook's signature does.
    mutationFn: (body: BodyOf<P, 'post'>) => answerOf(client.api.POST(path as never, { body } as never)) as Promise<AnswerOf<P, 'post'>>,
    onSuccess: (answer, body) => {
      notifySuccess(doneMessage(body));
      onDone?.(answer, body);
      void queries.invalidateQueries({ queryKey: listKey });
    },
  });
}
