/**
 * A resource named by its prn, shown by name and linked to its page when the console has one:
 * an event's subject or actor, say, instead of a prn cut to its organization prefix.
 */
import { Text } from '@mantine/core';
import { AnchorLink } from './AnchorLink';

/** `prn:1:<organization>:<type>:<id>` -> `<type>`. */
export const prnType = (prn: string) => prn.split(':')[3] ?? '';
/** The last 8 characters of the id: enough to tell two unnamed things apart on one screen. */
export const shortId = (prn: string) => (prn.split(':')[4] ?? prn).slice(0, 8);

const NOUNS: Record<string, string> = { api_key: 'API key', artifact_version: 'artifact version', bundle_override: 'bundle override', ca_certificate: 'CA certificate', signing_key: 'signing key', web_console_shell: 'shell' };
export const typeNoun = (type: string) => NOUNS[type] ?? type.replace(/_/g, ' ');

export function PrnLink({ prn, name }: { prn: string; name?: string }) {
  const type = prnType(prn);
  const label = name ?? `${typeNoun(type)} ${shortId(prn)}`;
  const title = `${typeNoun(type)}: ${prn}`;
  const params = { prn };
  switch (type) {
    case 'device':
      return <AnchorLink to="/devices/$prn" params={params} title={title}>{label}</AnchorLink>;
    case 'release':
      return <AnchorLink to="/releases/$prn" params={params} title={title}>{label}</AnchorLink>;
    case 'cohort':
      return <AnchorLink to="/cohorts/$prn" params={params} title={title}>{label}</AnchorLink>;
    case 'product':
      return <AnchorLink to="/products/$prn" params={params} title={title}>{label}</AnchorLink>;
    case 'webhook':
      return <AnchorLink to="/webhooks/$prn" params={params} title={title}>{label}</AnchorLink>;
    case 'artifact':
      return <AnchorLink to="/artifacts/$prn" params={params} title={title}>{label}</AnchorLink>;
    case 'artifact_version':
      return <AnchorLink to="/artifact-versions/$prn" params={params} title={title}>{label}</AnchorLink>;
    case 'binary':
      return <AnchorLink to="/binaries/$prn" params={params} title={title}>{label}</AnchorLink>;
    case 'bundle_override':
      return <AnchorLink to="/bundle-overrides/$prn" params={params} title={title}>{label}</AnchorLink>;
    default:
      return (
        <Text span size="sm" title={title}>
          {label}
        </Text>
      );
  }
}
