import { createContext, useContext } from 'react';
import type { OpenApiDocument } from '@site/src/api/openapi';
import type { SharedSchemas } from '@site/src/api/sharedSchemas';

/** A recorded call (site/data/api-examples.json, written by test/cliExamples.test.ts). */
export interface ApiExample {
  method: string;
  path: string;
  request: unknown;
  status: number;
  response: unknown;
}

export interface ReferenceContext {
  doc: OpenApiDocument;
  shared: SharedSchemas;
  examples: Record<string, ApiExample>;
}

export const Reference = createContext<ReferenceContext | null>(null);

export function useReference(): ReferenceContext {
  const value = useContext(Reference);
  if (!value) throw new Error('ApiReference parts must be rendered inside <ApiReference>');
  return value;
}
