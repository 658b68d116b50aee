// Messages between the Source tab and its diagnostics worker.
import type { WindDiagnostic } from '#engine/wind/diagnostics.ts';

export interface CheckRequest {
  readonly id: number;
  readonly text: string;
}

export interface CheckAnswer {
  readonly id: number;
  readonly diagnostics: WindDiagnostic[];
}
