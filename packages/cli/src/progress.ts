/**
 * Upload progress on stderr (stdout carries the JSON answer): a redrawn bar on a terminal,
 * one plain line per step otherwise (CI logs).
 */
import type { UploadEvent } from '@canopy/sdk';
import type { CliIo } from './io';

const MiB = 1024 * 1024;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

export function createProgressReporter(io: CliIo): (event: UploadEvent) => void {
  const tty = Boolean(io.stderr.isTTY);
  let total = 0;
  let done = 0;
  let parts = 0;
  let partsDone = 0;
  const bar = () => {
    const width = 30;
    const fraction = total === 0 ? 1 : done / total;
    const filled = Math.round(fraction * width);
    io.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}%  ${partsDone}/${parts} parts  ${mib(done)} / ${mib(total)}`);
  };
  return (event) => {
    switch (event.type) {
      case 'hashed':
        total = event.plan.size;
        parts = event.plan.parts.length;
        io.stderr.write(`hashed ${event.plan.path}: ${mib(total)}, sha256 ${event.plan.hash}, ${parts} part(s)\n`);
        break;
      case 'binary':
        io.stderr.write(`${event.reused ? 'resuming' : 'created'} binary ${event.binary.prn} (state ${event.binary.state})\n`);
        break;
      case 'part-skipped':
      case 'part-uploaded':
        done += event.part.size;
        partsDone += 1;
        if (tty) bar();
        else io.stderr.write(`part ${event.part.index}/${parts} ${event.type === 'part-skipped' ? 'already uploaded' : 'uploaded'} (${mib(done)} / ${mib(total)})\n`);
        if (tty && partsDone === parts) io.stderr.write('\n');
        break;
      case 'state':
        io.stderr.write(`binary state: ${event.state}\n`);
        break;
    }
  };
}
