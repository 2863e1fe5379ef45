/**
 * Every row of a test database's events table checked against the event catalogue
 * (src/events/catalogue.ts): a name it declares, data of its schema. recordEvent checks under
 * test as it writes, but statements of fixed text (admissions, update checks, reports) build an
 * event's data in SQL too; this reads what was actually stored. Run by every test server as it
 * closes (server.ts), so every API test's flows are checked.
 */
import { catalogueProblem } from '../../src/events/catalogue';
import type { Executor } from '../../src/db/connection';

/** The problems of the stored events (at most `limit`), each naming the event's id. */
export async function storedEventProblems(db: Executor, limit = 10): Promise<string[]> {
  const result = await db.execute('select id, type, subtype, data from events order by inserted_at, id');
  const rows = (result as unknown as { rows: { id: string; type: string; subtype: string; data: unknown }[] }).rows;
  const problems: string[] = [];
  for (const row of rows) {
    const problem = catalogueProblem(row);
    if (problem) problems.push(`event ${row.id}: ${problem}`);
    if (problems.length >= limit) break;
  }
  return problems;
}
