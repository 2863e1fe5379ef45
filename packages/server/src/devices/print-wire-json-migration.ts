/** Prints the migration that installs devices_wire_json() as the Device schema now says. */
import { deviceWireJsonMigration } from './wire-json-sql';

process.stdout.write(deviceWireJsonMigration());
