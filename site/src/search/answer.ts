import { search, type Hit } from './engine';

// Ask mode is retrieval only: the "answer" is the passages of the docs that best match the
// question, quoted with links. Nothing leaves the browser and nothing is generated.
export interface Passage {
  url: string;
  page: string;
  text: string;
}

const PASSAGES = 3;
const PASSAGE_CHARS = 420;
// Words that carry no meaning for matching; dropping them lets the index match the nouns.
const FILLER = new Set(['how', 'do', 'does', 'i', 'can', 'what', 'is', 'are', 'the', 'a', 'an', 'to', 'of', 'in', 'on', 'for', 'my', 'with', 'when', 'why', 'which', 'should', 'it']);

export function keywords(question: string): string {
  return question
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, ' ')
    .split(/\s+/)
    .filter((w) => w && !FILLER.has(w))
    .join(' ');
}

// Tables and code blocks are indexed as text too; a quotable passage reads like prose.
const TABLE_START = /^(Field|Parameter|Option|Key|Column|Status|Type|Variable|Command|Setting|Board|Cohort|Role|Operator|Partition|Method|Channel|Path|Concept|Table|Installer)\s/;

export function isProse(text: string): boolean {
  const words = text.split(/\s+/).length;
  return words >= 8 && /[a-z)]\.(\s|…|$)/.test(text) && !TABLE_START.test(text);
}

export async function answer(baseUrl: string, question: string): Promise<Passage[]> {
  const hits: Hit[] = await search(baseUrl, keywords(question) || question, 40);
  const seenPages = new Set<string>();
  const passages: Passage[] = [];
  for (const hit of hits) {
    // Content hits carry their text as context; one passage per page keeps answers varied.
    if (!hit.text || !isProse(hit.text)) continue;
    const page = hit.url.split('#')[0];
    if (seenPages.has(page)) continue;
    seenPages.add(page);
    passages.push({ url: hit.url, page: hit.title, text: hit.text.length > PASSAGE_CHARS ? `${hit.text.slice(0, PASSAGE_CHARS).trimEnd()}…` : hit.text });
    if (passages.length === PASSAGES) break;
  }
  return passages;
}
