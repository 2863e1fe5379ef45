import fs from 'node:fs';
import path from 'node:path';

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

export function loadBoards(siteDir: string): Board[] {
  return (JSON.parse(fs.readFileSync(path.join(siteDir, 'data/boards.json'), 'utf8')) as { boards: Board[] }).boards;
}
