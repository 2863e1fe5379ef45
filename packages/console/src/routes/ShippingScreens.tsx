/** The screens of what is shipped, read from their URL's prn: an artifact, a version, a binary, a bundle override. */
import { getRouteApi } from '@tanstack/react-router';
import { ArtifactPage } from '../features/artifacts/ArtifactPage';
import { ArtifactVersionPage } from '../features/artifacts/ArtifactVersionPage';
import { BinaryPage } from '../features/binaries/BinaryPage';
import { BundleOverridePage } from '../features/bundle-overrides/BundleOverridePage';

const artifact = getRouteApi('/artifacts/$prn');
const version = getRouteApi('/artifact-versions/$prn');
const binary = getRouteApi('/binaries/$prn');
const override = getRouteApi('/bundle-overrides/$prn');

export function ArtifactScreen() {
  const { prn } = artifact.useParams();
  return <ArtifactPage key={prn} prn={prn} />;
}

export function ArtifactVersionScreen() {
  const { prn } = version.useParams();
  return <ArtifactVersionPage key={prn} prn={prn} />;
}

export function BinaryScreen() {
  const { prn } = binary.useParams();
  return <BinaryPage key={prn} prn={prn} />;
}

export function BundleOverrideScreen() {
  const { prn } = override.useParams();
  return <BundleOverridePage key={prn} prn={prn} />;
}
