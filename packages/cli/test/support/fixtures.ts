/** Resources most CLI tests build on, made through the CLI itself. */

type Ok = (args: string[]) => Promise<any>;

/** A product, a cohort in it, a device in the cohort and an artifact version; `tag` keeps names apart between tests. */
export async function fleetFixtures(ok: Ok, tag: string) {
  const product = (await ok(['products', 'create', '--name', `product-${tag}`])).product;
  const cohort = (await ok(['cohorts', 'create', '--name', `cohort-${tag}`, '--product-prn', product.prn])).cohort;
  const device = (await ok(['devices', 'create', '--identifier', `dev-${tag}`, '--product-prn', product.prn, '--cohort-prn', cohort.prn])).device;
  const artifact = (await ok(['artifacts', 'create', '--name', `artifact-${tag}`])).artifact;
  const version = (await ok(['artifact-versions', 'create', '--artifact-prn', artifact.prn, '--version', '1.0.0'])).artifact_version;
  return { product, cohort, device, artifact, version };
}

export const prns = (items: { prn: string }[]) => items.map((item) => item.prn);
