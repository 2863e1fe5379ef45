import data from '@site/data/boards.json';

// Board facts shared by the React hardware pages; the same file drives the generated guides.
export interface Board {
  vendor: string;
  vendorName: string;
  slug: string;
  name: string;
  kind: string;
  soc: string;
  arch: string;
  target: string;
  storage: string;
  media: string;
  console: string;
  hardware: boolean;
  solutionOverview: boolean;
  solution: string | null;
  pitch: string;
  useCases: string[];
  features: { abUpdates: boolean; secureBoot: boolean; tunnels: boolean; hitl: boolean };
}

export const boards = (data as { boards: Board[] }).boards;

export function findBoard(vendor: string, slug: string): Board {
  const board = boards.find((b) => b.vendor === vendor && (b.slug === slug || b.solution === slug));
  if (!board) throw new Error(`Unknown board ${vendor}/${slug}`);
  return board;
}

export const FEATURE_LABELS: Record<keyof Board['features'], string> = {
  abUpdates: 'A/B over-the-air updates with rollback',
  secureBoot: 'Verified boot chain',
  tunnels: 'Remote-access tunnels',
  hitl: 'Hardware-in-the-loop development',
};

export const MEDIA_LABELS: Record<string, string> = {
  'usb-recovery': 'USB recovery mode',
  uuu: 'USB serial download (uuu)',
  rpiboot: 'USB mass storage (rpiboot)',
  qdl: 'Emergency download (QDL)',
  'sd-card': 'microSD card',
};
