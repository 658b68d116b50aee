// Durations (spec §6.4): what operators type on the CLI and what tables show.

const MAX_MS = BigInt(Number.MAX_SAFE_INTEGER);
const PARTS = /^(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?$/;
const UNIT_MS = [86_400_000n, 3_600_000n, 60_000n, 1000n];

/** Milliseconds for `5400000` or `1d2h30m5s`, or undefined for anything else. */
export function parseDuration(text: string): number | undefined {
  let total: bigint;
  if (/^[0-9]+$/.test(text)) total = BigInt(text);
  else {
    const match = PARTS.exec(text);
    if (!match || text === '') return undefined;
    total = 0n;
    for (let i = 0; i < 4; i++) {
      const part = match[i + 1];
      if (part !== undefined) total += BigInt(part) * (UNIT_MS[i] ?? 0n);
    }
  }
  return total <= MAX_MS ? Number(total) : undefined;
}

export function formatDuration(ms: number): string {
  if (ms === 0) return '-';
  if (ms < 1000) return '<1s';
  const seconds = Math.floor(ms / 1000);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
}
