/**
 * The canopy session whose commands and answers become the CLI reference's examples
 * (data/cli-examples.json) and the API reference's examples (data/api-examples.json).
 *
 * Each step is one canopy command line as a reader would type it, with shell variables in double
 * quotes ("$ARTIFACT_PRN"); `save` captures values of its JSON answer for later steps. The first
 * step of each command path is that command's example, unless it is marked `setup`. Steps run in
 * order against one server, so every example runs on the state the earlier ones made, the way a
 * reader's session would.
 */
export interface Step {
  cmd: string;
  /** Variable name -> jq-like dotted path into the JSON answer (".artifact.prn"). */
  save?: Record<string, string>;
  /** A helper step: runs, but is not the example of its command. */
  setup?: boolean;
}

/** Commands with no recorded example, and why (the check requires a reason for every one). A new
 * command that cannot be recorded must be named here. */
/** The TUF steps need key files and roots signed in order: packages/cli/test/tuf.test.ts runs each, as the TUF guide orders them. */
const TUF_OFFLINE = 'an offline TUF step (key files, a root signed in order); packages/cli/test/tuf.test.ts runs it in the order of the guide Trust and signing > TUF';

const RECLAIM =
  'needs a known device to claim its identifier again with another key over mutual TLS, which the session does not do; packages/cli/test/claim-tokens.test.ts runs the command on a reclaim made that way';

export const NOT_RECORDED: Record<string, string> = {
  'device-reclaims list': RECLAIM,
  'device-reclaims get': RECLAIM,
  'device-reclaims approve': RECLAIM,
  'device-reclaims reject': RECLAIM,
  'tuf posture': TUF_OFFLINE,
  'tuf key generate': TUF_OFFLINE,
  'tuf online-keys create': TUF_OFFLINE,
  'tuf online-keys list': TUF_OFFLINE,
  'tuf root create': TUF_OFFLINE,
  'tuf root sign': TUF_OFFLINE,
  'tuf root commit': TUF_OFFLINE,
  'tuf root propose': TUF_OFFLINE,
  'tuf root sign-proposal': TUF_OFFLINE,
  'tuf delegate add': TUF_OFFLINE,
  'tuf delegate revoke': TUF_OFFLINE,
  'tuf targets sign': TUF_OFFLINE,
  'releases penalty-box-release':
    'needs a device boxed by failed update reports sent over mutual TLS, which the session does not send; packages/server/test/api/penalty-box.test.ts releases one, packages/cli/test/releases-rollouts.test.ts runs the command',
};

export const STEPS: Step[] = [
  { cmd: 'users me' },
  { cmd: 'products create --name gateway', save: { PRODUCT_PRN: '.product.prn' } },
  { cmd: 'products get "$PRODUCT_PRN"' },
  { cmd: 'products list --limit 20' },
  { cmd: 'products update "$PRODUCT_PRN" --name field-gateway' },
  { cmd: 'cohorts create --name beta --product-prn "$PRODUCT_PRN" --description "Early adopters"', save: { COHORT_PRN: '.cohort.prn' } },
  { cmd: 'cohorts get "$COHORT_PRN"' },
  { cmd: 'cohorts list' },
  { cmd: 'cohorts update "$COHORT_PRN" --description "Staff devices"' },
  { cmd: 'claim-tokens create --name line-3 --max-uses 50 --expires-at 2030-01-01T00:00:00Z --product-prn "$PRODUCT_PRN" --cohort-prn "$COHORT_PRN" --tags line-3,eu', save: { CLAIM_TOKEN_PRN: '.claim_token.prn' } },
  { cmd: 'claim-tokens get "$CLAIM_TOKEN_PRN"' },
  { cmd: 'claim-tokens list' },
  { cmd: 'claim-tokens delete "$CLAIM_TOKEN_PRN"' },
  { cmd: 'signing-keys create --generate release-key', save: { KEY_PRN: '.signing_key.prn' } },
  { cmd: 'signing-keys get "$KEY_PRN"' },
  { cmd: 'signing-keys public-key "$KEY_PRN"' },
  { cmd: 'signing-keys list' },
  { cmd: 'signing-keys update "$KEY_PRN" --name release-key-2025' },
  { cmd: 'artifacts create --name gateway-os --description "Root filesystem"', save: { ARTIFACT_PRN: '.artifact.prn' } },
  { cmd: 'artifacts get "$ARTIFACT_PRN"' },
  { cmd: 'artifacts list --search "name:\'gateway-os\'"' },
  { cmd: 'artifacts update "$ARTIFACT_PRN" --custom-metadata \'{"team": "os"}\'' },
  { cmd: 'artifact-versions create --artifact-prn "$ARTIFACT_PRN" --version 1.4.0', save: { VERSION_PRN: '.artifact_version.prn' } },
  { cmd: 'artifact-versions get "$VERSION_PRN"' },
  { cmd: 'artifact-versions list --artifact-prn "$ARTIFACT_PRN"' },
  { cmd: 'artifact-versions update "$VERSION_PRN" --description "Security fixes"' },
  // A binary uploaded part by part: declare it, upload its one part, verify, sign.
  { cmd: 'artifact-versions create --artifact-prn "$ARTIFACT_PRN" --version 1.4.1', save: { VERSION2_PRN: '.artifact_version.prn' }, setup: true },
  { cmd: 'binaries create --artifact-version-prn "$VERSION2_PRN" --target aarch64-unknown-linux-gnu --hash "$PART_HASH" --size 1024', save: { PARTS_BINARY_PRN: '.binary.prn' } },
  { cmd: 'binary-parts create "$PARTS_BINARY_PRN" 1 --expected-binary-size 1024 --hash "$PART_HASH" --size 1024' },
  { cmd: 'binary-parts list "$PARTS_BINARY_PRN"' },
  { cmd: 'binaries get "$PARTS_BINARY_PRN"' },
  { cmd: 'binaries list --artifact-version-prn "$VERSION2_PRN"' },
  { cmd: 'binaries update "$PARTS_BINARY_PRN" --description "Uploaded part by part"' },
  { cmd: 'binaries delete "$PARTS_BINARY_PRN"' },
  // The whole upload in one command.
  { cmd: 'binaries create --artifact-version-prn "$VERSION_PRN" --target aarch64-unknown-linux-gnu --content-path gateway-os-1.4.0.img --signing-key-pair release-key', save: { BINARY_PRN: '.binary.prn' }, setup: true },
  { cmd: 'signing-keys create --generate backup-key', setup: true },
  { cmd: 'binary-signatures create --binary-prn "$BINARY_PRN" --signing-key-pair backup-key', save: { SIGNATURE_PRN: '.binary_signature.prn' } },
  { cmd: 'binary-signatures delete "$SIGNATURE_PRN"' },
  { cmd: 'bundles create --name gateway-1.4 --artifact-version-prns "$VERSION_PRN"', save: { BUNDLE_PRN: '.bundle.prn' } },
  { cmd: 'bundles get "$BUNDLE_PRN"' },
  { cmd: 'bundles list' },
  { cmd: 'bundles update "$BUNDLE_PRN" --name gateway-1.4.0' },
  { cmd: 'bundle-signatures create --bundle-prn "$BUNDLE_PRN" --signing-key-pair backup-key', save: { BUNDLE_SIGNATURE_PRN: '.bundle_signature.prn' } },
  { cmd: 'bundle-signatures get "$BUNDLE_SIGNATURE_PRN"' },
  { cmd: 'bundle-signatures list --search "bundle_prn:\'$BUNDLE_PRN\'"' },
  { cmd: 'bundle-signatures delete "$BUNDLE_SIGNATURE_PRN"' },
  { cmd: 'releases create --bundle-prn "$BUNDLE_PRN" --cohort-prn "$COHORT_PRN" --name 1.4.0 --version 1.4.0 --required false --schedule-date 2025-06-11T05:00:00Z', save: { RELEASE_PRN: '.release.prn' } },
  { cmd: 'releases get "$RELEASE_PRN"' },
  { cmd: 'releases list --search "cohort_prn:\'$COHORT_PRN\'"' },
  { cmd: 'releases update "$RELEASE_PRN" --description "Security fixes" --max-concurrent 500' },
  { cmd: 'releases rollout "$RELEASE_PRN"' },
  { cmd: 'binaries deltas "$BINARY_PRN"' },
  { cmd: 'releases dry-run --bundle-prn "$BUNDLE_PRN" --cohort-prn "$COHORT_PRN" --name 1.4.1 --required false --schedule-date 2025-06-11T05:00:00Z --phase-value 0.1' },
  { cmd: 'devices create --identifier gw-0042 --product-prn "$PRODUCT_PRN" --cohort-prn "$COHORT_PRN" --target aarch64-unknown-linux-gnu --tags site-a', save: { DEVICE_PRN: '.device.prn' } },
  { cmd: 'devices get "$DEVICE_PRN"' },
  { cmd: 'devices list --search "tags:\'site-a\'"' },
  { cmd: 'devices update "$DEVICE_PRN" --tags site-a,lab' },
  { cmd: 'devices get-update "$DEVICE_PRN" --release-version 1.3.0' },
  { cmd: 'bundle-overrides create --name hotfix-trial --bundle-prn "$BUNDLE_PRN" --starts-at 2025-06-11T00:00:00Z --ends-at 2099-06-18T00:00:00Z', save: { OVERRIDE_PRN: '.bundle_override.prn' } },
  { cmd: 'bundle-overrides get "$OVERRIDE_PRN"' },
  { cmd: 'bundle-overrides list' },
  { cmd: 'bundle-overrides update "$OVERRIDE_PRN" --description "Two devices for a week"' },
  { cmd: 'bundle-overrides devices add "$OVERRIDE_PRN" --device-prn "$DEVICE_PRN"' },
  { cmd: 'bundle-overrides devices list "$OVERRIDE_PRN"' },
  { cmd: 'bundle-overrides devices remove "$OVERRIDE_PRN" "$DEVICE_PRN"' },
  { cmd: 'bundle-overrides delete "$OVERRIDE_PRN"' },
  // Certificates: a development CA, registered with proof of possession, and a device certificate.
  { cmd: 'x509 create-ca --common-name "Gateway factory CA" --out-dir certs' },
  { cmd: 'ca-certificates verification-code', save: { CODE: '.verification_code' } },
  { cmd: 'x509 create-verification-certificate --ca-certificate certs/ca.pem --ca-key certs/ca-key.pem --verification-code "$CODE" --out-dir certs' },
  { cmd: 'ca-certificates create --certificate certs/ca.pem --verification-certificate certs/verification.pem --description "Factory CA 2025"', save: { CA_PRN: '.ca_certificate.prn' } },
  { cmd: 'ca-certificates get "$CA_PRN"' },
  { cmd: 'ca-certificates list' },
  { cmd: 'ca-certificates update "$CA_PRN" --description "Factory CA, line 2"' },
  { cmd: 'x509 create-device-certificate --ca-certificate certs/ca.pem --ca-key certs/ca-key.pem --common-name gw-0042 --out-dir certs' },
  { cmd: 'device-certificates create --device-prn "$DEVICE_PRN" --certificate certs/gw-0042.pem', save: { DEVICE_CERT_PRN: '.device_certificate.prn' } },
  { cmd: 'device-certificates get "$DEVICE_CERT_PRN"' },
  { cmd: 'device-certificates list --device-prn "$DEVICE_PRN"' },
  { cmd: 'device-certificates delete "$DEVICE_CERT_PRN"' },
  { cmd: 'ca-certificates delete "$CA_PRN"' },
  { cmd: 'tunnels create --device-prn "$DEVICE_PRN" --device-tunnel-port 22 --ttl 900', save: { TUNNEL_PRN: '.tunnel.prn' } },
  { cmd: 'tunnels get "$TUNNEL_PRN"' },
  { cmd: 'tunnels list' },
  { cmd: 'tunnels update "$TUNNEL_PRN" --state closed' },
  { cmd: 'webhooks create --url "$RECEIVER_URL" --enabled-events device.release_changed --state enabled', save: { WEBHOOK_PRN: '.webhook.prn' } },
  { cmd: 'webhooks get "$WEBHOOK_PRN"' },
  { cmd: 'webhooks list' },
  { cmd: 'webhooks update "$WEBHOOK_PRN" --description "Release changes to the ops channel"' },
  { cmd: 'webhooks test-fire "$WEBHOOK_PRN"' },
  { cmd: 'webhooks roll-secret "$WEBHOOK_PRN" --webhook-ttl 900' },
  { cmd: 'webhooks delete "$WEBHOOK_PRN"' },
  { cmd: 'events list --type tunnel --limit 2' },
  // A second release, paused, resumed, then reverted and cancelled: the revert appends a required release back on 1.4.0's bundle.
  { cmd: 'releases create --bundle-prn "$BUNDLE_PRN" --cohort-prn "$COHORT_PRN" --name 1.4.1 --version 1.4.1 --required false --schedule-date 2025-06-11T05:00:00Z', save: { RELEASE2_PRN: '.release.prn' }, setup: true },
  { cmd: 'releases pause "$RELEASE2_PRN"' },
  { cmd: 'releases penalty-box "$RELEASE2_PRN"' },
  { cmd: 'devices penalty-box "$DEVICE_PRN"' },
  { cmd: 'releases resume "$RELEASE2_PRN"' },
  { cmd: 'releases revert "$RELEASE2_PRN" --name "back to 1.4.0" --version 1.4.2', save: { REVERT_PRN: '.release.prn' } },
  { cmd: 'releases cancel "$RELEASE2_PRN"' },
  // The legacy API. fwup-key.pub is the public key as `fwup -g` writes it; the .fw archives are
  // fwup archives signed with its private key (`fwup -S`), made by the test (cliExamples.test.ts).
  { cmd: 'signing-keys create --name fwup-key --value-path fwup-key.pub', setup: true },
  { cmd: 'firmwares upload --path gateway-2.0.0.fw --org-name default --product-name field-gateway --ttl 86400', save: { FIRMWARE_UUID: '.firmware.uuid', FIRMWARE_PRN: '.firmware.prn' } },
  { cmd: 'firmwares upload --path gateway-2.0.1.fw --product-prn "$PRODUCT_PRN"', save: { FIRMWARE2_UUID: '.firmware.uuid' }, setup: true },
  { cmd: 'firmwares get "$FIRMWARE_UUID" --expand url' },
  { cmd: 'firmwares list --product-prn "$PRODUCT_PRN"' },
  { cmd: 'deployments create --name site-a --product-prn "$PRODUCT_PRN" --firmware-uuid "$FIRMWARE_UUID" --conditions \'{"version": "~> 1.4", "tags": ["site-a"]}\' --is-active true', save: { DEPLOYMENT_PRN: '.deployment.prn' } },
  { cmd: 'deployments get "$DEPLOYMENT_PRN"' },
  { cmd: 'deployments list --product-prn "$PRODUCT_PRN"' },
  { cmd: 'deployments update "$DEPLOYMENT_PRN" --firmware-uuid "$FIRMWARE2_UUID" --state off' },
  { cmd: 'deployments delete "$DEPLOYMENT_PRN"' },
  { cmd: 'firmwares delete "$FIRMWARE_PRN"' },
  { cmd: 'firmwares delete "$FIRMWARE2_UUID"', setup: true },
  // Deletions last, in dependency order.
  { cmd: 'devices delete "$DEVICE_PRN"' },
  { cmd: 'releases delete "$RELEASE_PRN"' },
  { cmd: 'releases delete "$REVERT_PRN"', setup: true },
  { cmd: 'releases delete "$RELEASE2_PRN"', setup: true },
  { cmd: 'bundles delete "$BUNDLE_PRN"' },
  { cmd: 'binaries update "$BINARY_PRN" --state destroyed', setup: true },
  { cmd: 'binaries delete "$BINARY_PRN"', setup: true },
  { cmd: 'artifact-versions delete "$VERSION_PRN"' },
  { cmd: 'artifacts create --name scratch', save: { SCRATCH_PRN: '.artifact.prn' }, setup: true },
  { cmd: 'artifacts delete "$SCRATCH_PRN"' },
  { cmd: 'signing-keys create --generate old-key', save: { OLD_KEY_PRN: '.signing_key.prn' }, setup: true },
  { cmd: 'signing-keys delete "$OLD_KEY_PRN"' },
  // A log-in as the user `ops` (made with a password by the test before the session).
  { cmd: "users auth --username ops --password 'correct horse battery staple'", save: { OPS_TOKEN: '.data.token' } },
  { cmd: 'users sessions --api-key "$OPS_TOKEN"' },
  { cmd: 'users sign-out --api-key "$OPS_TOKEN"' },
  // Profiles, last: they change only local files (the session's own settings come from its environment).
  { cmd: 'config set base-url https://canopy.staging.example.com --profile staging' },
  { cmd: 'config get base-url' },
  { cmd: 'config use staging' },
  { cmd: 'config list' },
];

/** Splits a command line like a shell: words, "double quotes" (with $VARS), 'single quotes'. */
export function shellWords(line: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let word: string | null = null;
  const expand = (text: string) =>
    text.replace(/\$([A-Z0-9_]+)/g, (_, name: string) => {
      if (!(name in vars)) throw new Error(`undefined variable $${name} in: ${line}`);
      return vars[name];
    });
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === ' ') {
      if (word !== null) words.push(word);
      word = null;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      word = (word ?? '') + expand(line.slice(i + 1, end));
      i = end;
    } else {
      const end = line.slice(i).search(/[ '"]/);
      const text = end === -1 ? line.slice(i) : line.slice(i, i + end);
      word = (word ?? '') + expand(text);
      i += text.length - 1;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/** `.a.b.0.c` of a JSON value. */
export function pick(value: unknown, dotted: string): unknown {
  return dotted
    .split('.')
    .filter(Boolean)
    .reduce<unknown>((at, key) => (at == null ? undefined : (at as Record<string, unknown>)[key]), value);
}
