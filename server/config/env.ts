// How every configuration variable is read, whatever its section: the text trimmed, empty meaning
// unset; integers refused outside their range where a wrong value cannot be guessed (ports, nice) or
// clamped with a warning where the dashboard API's §18 says so; booleans strictly 1/true/0/false.
// A bad value is one ConfigError line naming the variable and what it was set to.
import type { Env } from './data-dir-default.ts';

/** A configuration problem the user can fix; its message is one clear line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** `invalid NAME="value": why`, the one shape of a refused value. */
export function invalid(name: string, raw: string | undefined, why: string): ConfigError {
  return new ConfigError(`invalid ${name}=${JSON.stringify(raw ?? '')}: ${why}`);
}

export interface EnvReader {
  /** The trimmed text, or undefined when unset or blank. */
  value(name: string): string | undefined;
  /** An integer; outside `min`–`max` it is clamped and a warning kept. */
  int(name: string, fallback: number, min: number, max: number): number;
  /** An integer; outside `min`–`max` it is refused. */
  wholeIn(name: string, fallback: number, min: number, max: number): number;
  bool(name: string, fallback?: boolean): boolean;
  oneOf<T extends string>(name: string, values: readonly T[], fallback: T): T;
  /** Values that were clamped into range; start-up logs each as a warning. */
  readonly warnings: string[];
}

export function envReader(env: Env): EnvReader {
  const warnings: string[] = [];
  const value = (name: string): string | undefined => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
  };
  return {
    value,
    warnings,
    int(name, fallback, min, max) {
      const raw = value(name);
      if (raw === undefined) return fallback;
      if (!/^-?\d+$/.test(raw)) throw invalid(name, raw, `${name} must be an integer`);
      return clamp(name, Number(raw), min, max, warnings);
    },
    wholeIn(name, fallback, min, max) {
      const raw = value(name);
      if (raw === undefined) return fallback;
      const n = Number(raw);
      if (!/^-?\d+$/.test(raw) || n < min || n > max)
        throw invalid(name, raw, `${name} must be an integer between ${min} and ${max}`);
      return n;
    },
    bool(name, fallback = false) {
      const raw = value(name);
      if (raw === undefined) return fallback;
      const text = raw.toLowerCase();
      if (!['1', 'true', '0', 'false'].includes(text))
        throw invalid(name, raw, `${name} must be 1, true, 0 or false`);
      return text === '1' || text === 'true';
    },
    oneOf(name, values, fallback) {
      const raw = value(name);
      if (raw === undefined) return fallback;
      const found = values.find((v) => v === raw);
      if (found === undefined) throw invalid(name, raw, `${name} must be one of ${values.join(', ')}`);
      return found;
    },
  };
}

export function clamp(name: string, n: number, min: number, max: number, warnings: string[]): number {
  if (n >= min && n <= max) return n;
  const clamped = Math.min(max, Math.max(min, n));
  warnings.push(`${name}=${n} is out of range (${min}–${max}); using ${clamped}`);
  return clamped;
}
