/**
 * A fleet of `devices` devices of one product ('bench') written straight into PostgreSQL in one
 * statement (seconds for 100,000, where the API would take minutes), then vacuumed and analysed
 * as in a fleet's steady state. Every 10th device is quarantined, every 3rd connected a moment
 * ago, every 7th tagged east (the rest bench), so filters and counts have something to select.
 * Devices have no cohort: cohort counters (migration 0006) are not touched.
 */
import { withClient } from './postgres';

export async function seedFleet(databaseUrl: string, devices: number): Promise<{ organizationId: string; productId: string }> {
  return withClient(databaseUrl, async (client) => {
    const { rows: [org] } = await client.query('select id from organizations limit 1');
    const { rows: [product] } = await client.query(`insert into products (id, organization_id, name) values (gen_random_uuid(), $1, 'bench') returning id`, [org.id]);
    await client.query(
      `insert into devices (id, organization_id, product_id, identifier, tags, quarantined, last_connected_at, inserted_at, updated_at)
       select gen_random_uuid(), $1, $2, 'device-' || g, case when g % 7 = 0 then array['east'] else array['bench'] end,
              g % 10 = 0, case when g % 3 = 0 then now() else null end, now() - g * interval '1 millisecond', now()
       from generate_series(1, $3::int) g`,
      [org.id, product.id, devices],
    );
    await client.query('vacuum analyze devices');
    return { organizationId: org.id as string, productId: product.id as string };
  });
}
