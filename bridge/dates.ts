// Date and time grammar of spec §3.1: calendar-checked, local time unless an offset is given.

const DATE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;
const DATE_TIME =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{3}))?)?(Z|[+-][0-9]{2}:[0-9]{2})?$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function validDay(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

export function isRealDate(text: string): boolean {
  const match = DATE.exec(text);
  return match !== null && validDay(Number(match[1]), Number(match[2]), Number(match[3]));
}

function localTime(year: number, month: number, day: number, h: number, m: number, s: number, ms: number) {
  // Date's constructor maps years 0–99 to 19xx; setFullYear does not.
  const date = new Date(2000, 0, 1, 0, 0, 0, 0);
  date.setFullYear(year, month - 1, day);
  date.setHours(h, m, s, ms);
  return date.getTime();
}

/** Epoch ms of an ISO date (local midnight) or date-time, or undefined if it is not one. */
export function parseIsoTime(text: string): number | undefined {
  const dateOnly = DATE.exec(text);
  if (dateOnly) {
    const [y, mo, d] = [Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3])];
    return validDay(y, mo, d) ? localTime(y, mo, d, 0, 0, 0, 0) : undefined;
  }
  const match = DATE_TIME.exec(text);
  if (!match) return undefined;
  const [y, mo, d, h, mi] = [1, 2, 3, 4, 5].map((i) => Number(match[i]));
  const s = Number(match[6] ?? 0);
  const ms = Number(match[7] ?? 0);
  if (y === undefined || mo === undefined || d === undefined || h === undefined || mi === undefined)
    return undefined;
  if (!validDay(y, mo, d) || h > 23 || mi > 59 || s > 59) return undefined;
  const zone = match[8];
  if (zone === undefined) return localTime(y, mo, d, h, mi, s, ms);
  const utc = new Date(0);
  utc.setUTCFullYear(y, mo - 1, d);
  utc.setUTCHours(h, mi, s, ms);
  if (zone === 'Z') return utc.getTime();
  const oh = Number(zone.slice(1, 3));
  const om = Number(zone.slice(4, 6));
  if (oh > 23 || om > 59) return undefined;
  const sign = zone.startsWith('-') ? -1 : 1;
  return utc.getTime() - sign * (oh * 60 + om) * 60_000;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD` in local time. */
export function formatLocalDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `YYYY-MM-DD HH:MM` in local time, for the DUE column. */
export function formatLocalDateTime(ms: number): string {
  const d = new Date(ms);
  return `${formatLocalDate(ms)} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
