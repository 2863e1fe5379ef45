// Board facts from data/boards.json, the one module both the React hardware pages and the
// generator (scripts/generate.ts, run by tsx) import. Keep it free of Node and Docusaurus-only
// imports: the JSON is imported by relative path so both webpack and tsx resolve it.
import data from '../../data/boards.json';

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
  media: 'usb-recovery' | 'uuu' | 'rpiboot' | 'qdl' | 'sd-card';
  console: string;
  recovery: string;
  flashTool: string;
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
