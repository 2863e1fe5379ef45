/**
 * The health gate's two settings, as an operator thinks of them: halt once this share of finished
 * installs failed, after at least this many finished. The API's `halt_failure_ratio` is 0..1
 * (null: off); the form shows a percentage. Beside them the soak: a device counts as succeeded
 * only once healthy this long after installing (empty: `installed` is success).
 */
import { Checkbox, Group, NumberInput } from '@mantine/core';

export interface HealthGate {
  enabled: boolean;
  /** Percent, 1..100. */
  percent: number | string;
  minReports: number | string;
  /** Seconds; '' for none. */
  soakSeconds: number | string;
}

export const DEFAULT_GATE: HealthGate = { enabled: true, percent: 20, minReports: 5, soakSeconds: '' };

export const gateOf = (release: { halt_failure_ratio: number | null; halt_min_reports: number; soak_seconds?: number | null }): HealthGate => ({
  soakSeconds: release.soak_seconds ?? '',
  enabled: release.halt_failure_ratio !== null,
  percent: release.halt_failure_ratio === null ? 20 : Math.round(release.halt_failure_ratio * 1000) / 10,
  minReports: release.halt_min_reports,
});

/** The API's fields; a bad number is sent as it is, for the server's refusal to name the field. */
export const gateBody = (gate: HealthGate) => ({
  halt_failure_ratio: gate.enabled ? Number(gate.percent) / 100 : null,
  halt_min_reports: Number(gate.minReports),
  soak_seconds: gate.soakSeconds === '' ? null : Number(gate.soakSeconds),
});

export function HealthGateFields({ value, onChange, readOnly = false }: { value: HealthGate; onChange(next: HealthGate): void; readOnly?: boolean }) {
  return (
    <Group align="flex-end" wrap="wrap">
      <Checkbox label="Halt the release when installs fail" checked={value.enabled} disabled={readOnly} onChange={(e) => onChange({ ...value, enabled: e.currentTarget.checked })} />
      <NumberInput label="Failure share that halts (%)" value={value.percent} onChange={(percent) => onChange({ ...value, percent })} min={0.1} max={100} decimalScale={1} disabled={!value.enabled} readOnly={readOnly} w={200} />
      <NumberInput label="After at least (finished installs)" value={value.minReports} onChange={(minReports) => onChange({ ...value, minReports })} min={1} allowDecimal={false} disabled={!value.enabled} readOnly={readOnly} w={220} />
      <NumberInput label="Soak (seconds healthy before success)" placeholder="none" value={value.soakSeconds} onChange={(soakSeconds) => onChange({ ...value, soakSeconds })} min={1} allowDecimal={false} readOnly={readOnly} w={260} />
    </Group>
  );
}
