// The geodesic-isotensoid dome (netting theory): the meridian on which geodesic fibres of
// Clairaut constant c carry the pressure load at equal tension everywhere. With ρ = r/R,
// ρ0 = c/R and ζ = z/R it solves dζ/dρ = −ρ³ / √F(ρ), F(ρ) = (ρ² − ρ0²)/(1 − ρ0²) − ρ⁶, real for
// ρ_b ≤ ρ ≤ 1: the meridian leaves the equator (ρ = 1) parallel to the axis and is parallel to it
// again at ρ_b, the root of F just above ρ0, where the boss seats. Both ends are 1/√ singular;
// the substitution ρ = m + h·cos u (m, h the middle and half-width of [ρ_b, 1]) turns the
// integrand smooth on u ∈ [0, π], so Simpson's rule needs no special handling but the two limits.

import type { Meridian } from './meridian.ts';

function netting(rho: number, rho0: number): number {
  return (rho * rho - rho0 * rho0) / (1 - rho0 * rho0) - rho ** 6;
}

function nettingSlope(rho: number, rho0: number): number {
  return (2 * rho) / (1 - rho0 * rho0) - 6 * rho ** 5;
}

/** ρ_b, the boss radius over R for a Clairaut radius ρ0 = c/R; null when no dome exists. */
export function isotensoidBossRatio(rho0: number): number | null {
  if (!(rho0 >= 0 && rho0 < 1)) return null;
  // F rises from −ρ0⁶ at ρ0 to its maximum at ρ⁴ = 1 / (3(1 − ρ0²)), then falls to 0 at ρ = 1.
  const peak = (3 * (1 - rho0 * rho0)) ** -0.25;
  if (!(peak < 1 && netting(peak, rho0) > 0)) return null;
  let low = rho0;
  let high = peak;
  for (let i = 0; i < 200 && high - low > 0; i++) {
    const mid = (low + high) / 2;
    if (mid === low || mid === high) break;
    if (netting(mid, rho0) < 0) low = mid;
    else high = mid;
  }
  return high;
}

/**
 * The isotensoid dome of equator radius R for geodesics of Clairaut constant c, as a chain of
 * `segments` frusta from the equator to the boss (vertices uniform in u). Throws when c admits
 * no isotensoid (c/R too large).
 */
export function isotensoidMeridian(R: number, c: number, segments: number): Meridian {
  if (!(R > 0) || !Number.isInteger(segments) || segments < 1) {
    throw new RangeError('an isotensoid dome needs R > 0 and at least one segment');
  }
  const rho0 = c / R;
  const rhoB = isotensoidBossRatio(rho0);
  if (rhoB === null) throw new RangeError(`no isotensoid dome exists for c/R = ${rho0}`);
  const m = (1 + rhoB) / 2;
  const h = (1 - rhoB) / 2;
  const rhoAt = (u: number) => m + h * Math.cos(u);
  // dζ/du = ρ³·h·sin u / √F(ρ(u)); at the ends √F ≈ √(|F′|·h/2)·u, hence the limits.
  const endLimit = (rho: number) => {
    const slope = Math.abs(nettingSlope(rho, rho0));
    return slope > 0 ? rho ** 3 * Math.sqrt((2 * h) / slope) : 0;
  };
  const dZeta = (u: number): number => {
    if (u <= 0) return endLimit(1);
    if (u >= Math.PI) return endLimit(rhoB);
    const rho = rhoAt(u);
    const f = netting(rho, rho0);
    return f > 0 ? (rho ** 3 * h * Math.sin(u)) / Math.sqrt(f) : endLimit(u < Math.PI / 2 ? 1 : rhoB);
  };
  const z = new Float64Array(segments + 1);
  const r = new Float64Array(segments + 1);
  const du = Math.PI / segments;
  let zeta = 0;
  r[0] = R;
  for (let i = 1; i <= segments; i++) {
    const u0 = (i - 1) * du;
    const u1 = i === segments ? Math.PI : i * du;
    zeta += ((u1 - u0) / 6) * (dZeta(u0) + 4 * dZeta((u0 + u1) / 2) + dZeta(u1));
    z[i] = R * zeta;
    r[i] = i === segments ? R * rhoB : R * rhoAt(u1);
  }
  return { z, r };
}
