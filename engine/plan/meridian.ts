// Dome meridians as chains of frusta. Any surface of revolution is approximated as closely as
// wanted by cylindrical and conical sections, and on such a chain the geodesic is closed form
// segment by segment (geodesic.ts), so no ODE and no turnaround singularity is ever integrated.
// A meridian runs from the dome's equator (z = 0, r = R) outward to its polar opening; z grows
// away from the cylinder. Vertices lie on the true surface (an inscribed chain).

/** Vertices (z[i], r[i]) of a chain of frusta, equator first. */
export interface Meridian {
  readonly z: Float64Array;
  readonly r: Float64Array;
}

/** Number of frusta of a meridian. */
export function meridianSegments(meridian: Meridian): number {
  return meridian.r.length - 1;
}

function sampled(segments: number, point: (i: number) => [number, number]): Meridian {
  if (!Number.isInteger(segments) || segments < 1)
    throw new RangeError('a meridian needs at least one segment');
  const z = new Float64Array(segments + 1);
  const r = new Float64Array(segments + 1);
  for (let i = 0; i <= segments; i++) {
    const [zi, ri] = point(i);
    z[i] = zi;
    r[i] = ri;
  }
  return { z, r };
}

/**
 * An ellipsoidal dome `r²/R² + z²/b² = 1` (b = aspect·R; aspect 1 is a hemisphere) from the equator
 * to the parallel of radius `openingRadius` (0: to the pole), vertices uniform in the parametric
 * angle t (r = R cos t, z = b sin t).
 */
export function ellipsoidMeridian(R: number, aspect: number, segments: number, openingRadius = 0): Meridian {
  if (!(R > 0) || !(aspect > 0)) throw new RangeError('an ellipsoidal dome needs R > 0 and aspect > 0');
  if (!(openingRadius >= 0 && openingRadius < R))
    throw new RangeError('the polar opening must be inside the equator');
  const b = aspect * R;
  const tEnd = Math.acos(openingRadius / R);
  return sampled(segments, (i) => {
    if (i === segments) return [b * Math.sin(tEnd), openingRadius];
    const t = tEnd * (i / segments);
    return [b * Math.sin(t), R * Math.cos(t)];
  });
}

/** A hemispherical dome of radius R to the parallel of radius `openingRadius`. */
export function hemisphereMeridian(R: number, segments: number, openingRadius = 0): Meridian {
  return ellipsoidMeridian(R, 1, segments, openingRadius);
}

/**
 * A dome given by its own points `[z, r]` from the equator outward (z ≥ 0 growing away from the
 * cylinder, r > 0 except possibly at a closed pole). The chain is the points themselves.
 */
export function profileMeridian(points: readonly (readonly [number, number])[]): Meridian {
  if (points.length < 2) throw new RangeError('a profile needs at least two points');
  return sampled(points.length - 1, (i) => {
    const [z, r] = points[i] ?? [Number.NaN, Number.NaN];
    if (!Number.isFinite(z) || !Number.isFinite(r) || r < 0)
      throw new RangeError(`profile point ${i} is not a finite [z, r ≥ 0]`);
    if (i > 0 && !(z >= (points[i - 1]?.[0] ?? 0)))
      throw new RangeError(`profile point ${i} goes back towards the cylinder`);
    return [z, r];
  });
}
