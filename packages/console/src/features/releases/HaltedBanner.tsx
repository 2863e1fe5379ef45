/**
 * Releases the health gate halted (disabled, with `halted_at`), each with Resume: `PATCH`
 * `disabled: false` clears `halted_at`; the counts stay, so a release still past the line halts
 * again at the next finished report (site/docs/canopy-core/guides/rolling-out-safely.md).
 */
import { Alert, Button, Stack, Text } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useSession } from '../../api/session-context';
import { patchRelease, releaseKeys, type Release } from './queries';
import { notifyFailure, notifySuccess } from '../../ui/notify';
import { Time } from '../../ui/Time';
import { AnchorLink } from '../../ui/AnchorLink';

export function HaltedBanner({ releases }: { releases: readonly Release[] }) {
  const { client, canWrite } = useSession();
  const queries = useQueryClient();
  const resume = useMutation({
    mutationFn: (release: Release) => patchRelease(client, release.prn, { disabled: false }),
    onSuccess: (_, release) => {
      notifySuccess(`Release ${release.name} resumed`);
      void queries.invalidateQueries({ queryKey: releaseKeys.lists });
      void queries.invalidateQueries({ queryKey: releaseKeys.rollouts });
    },
    onError: notifyFailure,
  });
  const halted = releases.filter((r) => r.halted_at);
  if (halted.length === 0) return null;
  return (
    <Stack gap="xs">
      {halted.map((release) => (
        <Alert key={release.prn} color="red" title={`Release ${release.name} is halted`} data-testid="halted-banner">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">
              The health gate halted it <Time value={release.halted_at!} relative />: too many of its installs failed, so devices that had not started it will not. See which devices failed and why on{' '}
              {/* Underlined text colour: the link blue on the red tint is 4.1:1. */}
              <AnchorLink to="/releases/$prn" params={{ prn: release.prn }} c="inherit" underline="always">
                the page of {release.name}
              </AnchorLink>
              , then resume or revert it there.
            </Text>
            {canWrite && (
              <Button size="xs" color="red" loading={resume.isPending && resume.variables?.prn === release.prn} onClick={() => resume.mutate(release)}>
                Resume {release.name}
              </Button>
            )}
          </Stack>
        </Alert>
      ))}
    </Stack>
  );
}
