/** The shapes the console reads (as the admin API's OpenAPI document describes them). */
export interface Device {
  prn: string;
  identifier: string;
  product_prn: string;
  cohort_prn: string | null;
  description: string | null;
  quarantined: boolean;
  archived: boolean;
  tags: string[] | null;
  target: string | null;
  last_connected_at: string | null;
  reported_bundle_prn: string | null;
  reported_release_prn: string | null;
  reported_release_version: string | null;
  inserted_at: string;
  updated_at: string;
}

export interface Product {
  prn: string;
  name: string;
  description: string | null;
  inserted_at: string;
}

export interface Cohort {
  prn: string;
  name: string;
  product_prn: string;
  description: string | null;
}

export interface Release {
  prn: string;
  name: string;
  bundle_prn: string;
  cohort_prn: string;
  description: string | null;
  required: boolean;
  disabled: boolean;
  schedule_date: string | null;
  schedule_complete: boolean;
  version: string | null;
  phase_mode: 'numeric' | 'tags';
  phase_tags: string[] | null;
  phase_type: 'static' | 'percent' | null;
  phase_value: number | null;
  phase_claim_count: number;
  next_release_prn: string | null;
  previous_release_prn: string | null;
  version_requirement: string | null;
  /** When the health gate halted the release (it is then disabled); null when not halted. */
  halted_at: string | null;
  inserted_at: string;
}

export interface Bundle {
  prn: string;
  name: string | null;
  description: string | null;
  artifact_version_prns: string[];
  inserted_at: string;
}

export interface BundleOverride {
  prn: string;
  name: string;
  description: string | null;
  bundle_prn: string;
  starts_at: string;
  ends_at: string | null;
  inserted_at: string;
}


export type ListOf<T> = { items: T[]; next_page: string | null };
