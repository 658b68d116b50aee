// Geodesic layers on vessels, planned and written: Clairaut's relation recomputed from the
// developed coordinates of the planned stations and from the emitted X and A words, coverage
// closing from the G-code, stations on the surface and no farther apart than asked, the hemisphere's
// closed-form turnaround, and every refusal with its reason (validate refuses what plan refuses).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PlanningError } from '../errors.ts';
import { gcd, RAD } from '../numeric.ts';
import { parseWindDefinition } from '../wind/index.ts';
import type { Layer, WindDefinition } from '../wind/types.ts';
import { initialCheckState } from './checks.ts';
import { checkPlan, planToString } from './index.ts';
import {
  developedClairaut,
  geodesic,
  hemi,
  kinematicsOf,
  layerMoves,
  profile,
  radiusAt,
  vessel,
  type Word,
  worstSlotError,
} from './testing/vessels.ts';

const CASES: [string, WindDefinition][] = [
  ['two hemispheres', vessel([geodesic()])],
  [
    'a hemisphere and a 0.6 ellipsoid, given c and a finer spacing',
    vessel([geodesic({ clairautRadius: 30, stationSpacingMM: 0.5 })], {
      start: hemi(30),
      end: { type: 'ellipsoidal', polarOpeningDiameter: 30, aspect: 0.6, points: null },
    }),
  ],
  [
    'two isotensoids (the geodesic turns at the boss edge)',
    vessel([geodesic()], {
      start: { type: 'isotensoid', polarOpeningDiameter: 40, aspect: null, points: null },
      end: { type: 'isotensoid', polarOpeningDiameter: 40, aspect: null, points: null },
    }),
  ],
  [
    'a profile dome (a cone to a flat end) and a hemisphere',
    vessel([geodesic({ clairautRadius: 25 })], {
      start: profile(30, [
        [0, 75],
        [60, 40],
        [62, 20],
      ]),
      end: hemi(30),
    }),
  ],
];

describe('geodesic layer on a vessel: the planned path', () => {
  for (const [name, definition] of CASES) {
    it(`${name}: Clairaut's relation from developed coordinates of consecutive stations to 1e-9·R`, () => {
      const k = kinematicsOf(definition);
      const { z, r, phi } = k.path;
      const R = k.vessel.R;
      let worst = 0;
      let pairs = 0;
      for (let i = 1; i < z.length; i++) {
        const z1 = z[i - 1] ?? 0;
        const z2 = z[i] ?? 0;
        const r1 = r[i - 1] ?? 0;
        const r2 = r[i] ?? 0;
        if (z1 === z2 && r1 === r2) continue;
        const c = developedClairaut(z1, r1, phi[i - 1] ?? 0, z2, r2, phi[i] ?? 0);
        worst = Math.max(worst, Math.abs(c - k.c));
        pairs++;
      }
      expect(pairs).toBe(z.length - 1);
      expect(worst).toBeLessThan(1e-9 * R);
    });

    it(`${name}: the pattern closes with a non-negative dwell; the program is as long as estimated`, () => {
      const k = kinematicsOf(definition);
      expect(k.poleDwell).toBeGreaterThanOrEqual(0);
      expect(gcd(k.advance, k.circuits)).toBe(1);
      const advance = k.circuitTurn + 2 * k.poleDwell;
      const slots = Array.from({ length: k.circuits }, (_, j) => (((j * advance * RAD) % 360) + 360) % 360);
      const gap = 360 / k.circuits;
      expect(worstSlotError(slots, gap)).toBeLessThan(1e-6);
      const summary = checkPlan(definition);
      expect(summary.layers[0]?.commands).toBe(k.lines);
    });
  }

  it('two hemispheres: each turnaround turns the mandrel 180° (± 2e-3°), the cylinder L·tan α / R', () => {
    const k = kinematicsOf(vessel([geodesic()], undefined, { meridianSegments: 1000 }));
    const { z, phi } = k.path;
    const L = k.vessel.L;
    // Out along the cylinder, into the end dome and back, back along the cylinder.
    const enter = z.findIndex((zi) => zi > L) - 1;
    const leave = z.findIndex((zi, i) => i > enter && zi === L);
    const back = z.findIndex((zi, i) => i > leave && zi < 0) - 1;
    const tanAlpha = k.c / Math.sqrt(k.vessel.R ** 2 - k.c ** 2);
    expect(Math.abs(((phi[enter] ?? 0) - (L * tanAlpha) / k.vessel.R) * RAD)).toBeLessThan(1e-9);
    expect(Math.abs(((phi[leave] ?? 0) - (phi[enter] ?? 0)) * RAD - 180)).toBeLessThan(2e-3);
    expect(Math.abs(((phi[k.path.phi.length - 1] ?? 0) - (phi[back] ?? 0)) * RAD - 180)).toBeLessThan(2e-3);
  });

  it('two hemispheres: every station lies on the sphere within the chord sagitta; written ones ≤ 1 mm of fibre apart', () => {
    const k = kinematicsOf(vessel([geodesic()]));
    const { R, L } = k.vessel;
    const { z, r, s } = k.path;
    // Vertices uniform in the polar angle from the equator to the opening.
    const step = Math.acos(20 / R) / 4096;
    const sagitta = R * (1 - Math.cos(step / 2));
    for (let i = 0; i < z.length; i++) {
      const zi = z[i] ?? 0;
      const ri = r[i] ?? 0;
      if (zi >= 0 && zi <= L) expect(ri).toBe(R);
      else {
        const d = Math.hypot(zi > L ? zi - L : zi, ri) - R;
        expect(d).toBeLessThanOrEqual(1e-12 * R);
        expect(-d).toBeLessThanOrEqual(sagitta * (1 + 1e-9));
      }
    }
    const written = Array.from(k.written);
    expect(written[0]).toBe(0);
    expect(written.at(-1)).toBe(z.length - 1);
    for (const turn of k.path.turns) expect(written).toContain(turn);
    for (let j = 1; j < written.length; j++) {
      const a = written[j - 1] ?? 0;
      const b = written[j] ?? 0;
      expect((s[b] ?? 0) - (s[a] ?? 0)).toBeLessThanOrEqual(1 + 1e-9);
    }
    // Far fewer lines than frustum junctions, but not fewer than the fibre needs.
    expect(written.length).toBeGreaterThanOrEqual(Math.ceil(s.at(-1) ?? 0));
    expect(written.length).toBeLessThan(z.length / 5);
  });

  it('an isotensoid turns the geodesic back at its boss edge, just above c', () => {
    const k = kinematicsOf(CASES[2]?.[1] as WindDefinition);
    for (const turn of k.path.turns) {
      const rTurn = k.path.r[turn] ?? 0;
      expect(rTurn).toBeGreaterThan(k.c);
      expect(rTurn).toBeLessThan(k.c * 1.01);
    }
    expect(k.c).toBe(20 + 3);
  });
});

describe('geodesic layer on a vessel: the G-code', () => {
  for (const [name, definition] of CASES) {
    it(`${name}: Clairaut's relation from the X and A words to 5e-3 mm; coverage closes; the mandrel never turns back`, () => {
      const k = kinematicsOf(definition);
      const { gcode, summary } = planToString(definition);
      const { moves, circuitStarts } = layerMoves(gcode, 1);
      let worst = 0;
      let checked = 0;
      for (let i = 1; i < moves.length; i++) {
        const p = moves[i - 1] as Word;
        const q = moves[i] as Word;
        expect(q.a).toBeGreaterThanOrEqual(p.a);
        // A dwell parks the carriage and turns the mandrel along r ≈ c: not a geodesic, by design.
        if (p.x === q.x) continue;
        const c = developedClairaut(p.x, radiusAt(k, p.x), p.a / RAD, q.x, radiusAt(k, q.x), q.a / RAD);
        worst = Math.max(worst, Math.abs(c - k.c));
        checked++;
      }
      expect(checked).toBeGreaterThan(k.circuits * (k.written.length - 3));
      expect(worst).toBeLessThan(5e-3);

      expect(circuitStarts).toHaveLength(k.circuits);
      const slots = circuitStarts.map((w) => ((w.a % 360) + 360) % 360);
      const gap = 360 / k.circuits;
      // Each A word is rounded to 1e-6°, so two of them are 1e-6° apart at worst.
      expect(worstSlotError(slots, gap)).toBeLessThan(1.01e-6);
      for (const start of circuitStarts) expect(start.x).toBe(0);

      const layer = summary.layers[0];
      // The dwell lays tow along the turnaround parallel (r = c, or the boss edge).
      const parked = k.path.turns.reduce((sum, turn) => sum + (k.path.r[turn] ?? 0) * k.poleDwell, 0);
      const fibre = k.circuits * ((k.path.s.at(-1) ?? 0) + parked);
      expect(layer?.wind_type).toBe('geodesic');
      expect(Math.abs((layer?.tow_m ?? 0) * 1000 - fibre)).toBeLessThan(1e-6 * fibre);
      expect(layer?.time_s).toBeGreaterThan(0);
    });
  }

  it('the head leans by the complement of the local fibre angle, against the travel, upright at the turns', () => {
    const definition = vessel([geodesic()]);
    const k = kinematicsOf(definition);
    const { moves } = layerMoves(planToString(definition).gcode, 1);
    const cylinder = 90 - k.cylinderAngle;
    expect(moves.some((w) => w.x > 10 && w.x < 290 && Math.abs(w.b + cylinder) < 1e-6)).toBe(true);
    expect(moves.some((w) => w.x > 10 && w.x < 290 && Math.abs(w.b - cylinder) < 1e-6)).toBe(true);
    for (const w of moves) {
      const r = radiusAt(k, w.x);
      expect(Math.abs(w.b)).toBeLessThanOrEqual(90 - Math.asin(Math.min(1, k.c / r)) * RAD + 2e-3);
    }
    const far = Math.max(...moves.map((m) => m.x));
    const turns = moves.filter((w) => w.x === far);
    expect(turns.length).toBeGreaterThanOrEqual(k.circuits);
    for (const w of turns) expect(w.b).toBe(0);
  });

  it('verbose output describes every station and changes no G0 line', () => {
    const definition = vessel([geodesic()]);
    const plain = planToString(definition).gcode.split('\n');
    const verbose = planToString(definition, { verbose: true }).gcode.split('\n');
    const moves = (lines: string[]) => lines.filter((line) => line.startsWith('G'));
    expect(moves(verbose)).toEqual(moves(plain));
    const described = verbose.filter((line) => line.startsWith('; Move ')).length;
    expect(described).toBe(moves(plain).filter((line) => line.startsWith('G0 ')).length - 2);
  });

  it('mixes with hoop and helical layers on the cylinder; the cylinder layers are unchanged by the domes', () => {
    const hoop: Layer = { windType: 'hoop', terminal: false };
    const cylinderOnly = {
      ...vessel([hoop]),
      mandrelParameters: { ...vessel([]).mandrelParameters, domes: null },
    };
    const withDomes = vessel([hoop]);
    expect(planToString(withDomes).gcode).toBe(planToString(cylinderOnly).gcode);
    const mixed = planToString(vessel([hoop, geodesic(), hoop]));
    expect(mixed.summary.layers.map((l) => l.wind_type)).toEqual(['hoop', 'geodesic', 'hoop']);
  });

  it('the shipped example plans: two hemispherical domes, a geodesic layer between hoops', () => {
    const url = new URL('../../resources/examples/vessel.wind', import.meta.url);
    const definition = parseWindDefinition(readFileSync(url), url.pathname);
    expect(definition.mandrelParameters.domes?.both?.type).toBe('hemispherical');
    const { summary } = planToString(definition);
    expect(summary.layers.some((layer) => layer.wind_type === 'geodesic')).toBe(true);
  });
});

describe('geodesic layer choices', () => {
  it('honours given circuits, advance and a dwell that closes; says why one that does not', () => {
    const auto = kinematicsOf(vessel([geodesic()]));
    const more = auto.circuits + 1;
    const given = kinematicsOf(vessel([geodesic({ circuits: more, patternAdvance: 1 })]));
    expect([given.circuits, given.advance]).toEqual([more, 1]);
    const dwell = given.poleDwell * RAD + 180;
    const fixed = kinematicsOf(vessel([geodesic({ poleDwellDegrees: dwell })]));
    expect(fixed.poleDwell * RAD).toBe(dwell);
    const closing = (fixed.circuitTurn + 2 * fixed.poleDwell) / ((2 * Math.PI) / fixed.circuits);
    expect(Math.abs(closing - Math.round(closing))).toBeLessThan(1e-9);
  });

  const refusals: [string, WindDefinition, string][] = [
    [
      'no domes',
      { ...vessel([geodesic()]), mandrelParameters: { ...vessel([]).mandrelParameters, domes: null } },
      'Layer 1: geodesic layers need a vessel: mandrelParameters.domes is not set',
    ],
    [
      'an opening too large for the band',
      vessel([geodesic()], { start: hemi(40), end: hemi(146) }),
      "Layer 1: the polar opening (diameter 146.0 mm) is too large for the 6.0 mm band: the band's inner edge needs a Clairaut radius of 76 mm, which is not below the cylinder radius 75.0 mm, so no fibre angle on the cylinder reaches it",
    ],
    [
      'an opening wider than the cylinder',
      vessel([geodesic()], { start: hemi(150), end: hemi(40) }),
      "Layer 1: the start dome's polar opening (diameter 150.0 mm) is not smaller than the cylinder (diameter 150.0 mm)",
    ],
    [
      'a Clairaut radius at the cylinder',
      vessel([geodesic({ clairautRadius: 75 })]),
      'Layer 1: clairautRadius 75.0 mm is not below the cylinder radius 75.0 mm: no fibre angle on the cylinder has sin α = c / R',
    ],
    [
      'a Clairaut radius that lets the band into the opening',
      vessel([geodesic({ clairautRadius: 22 })]),
      'Layer 1: clairautRadius 22.0 mm lets the band into the polar opening (diameter 40.0 mm): its inner edge needs at least 20 + 3 = 23 mm',
    ],
    [
      'too few circuits',
      vessel([geodesic({ circuits: 10 })]),
      'Layer 1: circuits 10 leave gaps: 75 bands of 6.0 mm are needed to cover the equator',
    ],
    [
      'an advance sharing a factor with the circuits',
      vessel([geodesic({ circuits: 75, patternAdvance: 15 })]),
      'Layer 1: patternAdvance 15 must be below circuits 75 and coprime with it, or the circuits leave slots empty',
    ],
    [
      'a profile that ends above c',
      vessel([geodesic({ clairautRadius: 25 })], {
        start: profile(30, [
          [0, 75],
          [50, 40],
        ]),
        end: hemi(30),
      }),
      'Layer 1: the geodesic (Clairaut radius 25 mm) cannot turn back on the start dome: its profile ends above that radius',
    ],
    [
      'a profile that does not start at the equator',
      vessel([geodesic()], {
        start: profile(30, [
          [0, 70],
          [50, 10],
        ]),
        end: hemi(30),
      }),
      "Layer 1: the start dome's profile must start at the equator [0, 75.0] (half the cylinder diameter)",
    ],
  ];
  for (const [name, definition, message] of refusals) {
    it(`refuses ${name}, in check and in plan alike`, () => {
      expect(() => checkPlan(definition)).toThrow(new PlanningError(message));
      expect(() => planToString(definition)).toThrow(message);
    });
  }

  it('refuses sizes that would exhaust memory or the line limit before building them', () => {
    expect(() => checkPlan(vessel([geodesic()], undefined, { meridianSegments: 100_001 }))).toThrow(
      'Layer 1: meridianSegments 100001 is more than the 100000 frusta a dome may have',
    );
    expect(() => checkPlan(vessel([geodesic({ stationSpacingMM: 1e-6 })]))).toThrow(
      /^Layer 1: stationSpacingMM 1e-06 mm gives about 1\.\d+e\+09 stations per circuit of 1\d{3}\.\d+ mm of fibre, more than the 2000000 the planner allows$/,
    );
    expect(() => checkPlan(vessel([geodesic()], undefined, { diameter: 1e9 }))).toThrow(
      /^Layer 1: stationSpacingMM 1\.0 mm gives about [\d.]+e\+09 stations per circuit/,
    );
    expect(() => checkPlan(vessel([geodesic()], undefined, { diameter: 2e5 }))).toThrow(
      'Layer 1: the program would exceed 50000000 G-code lines',
    );
    expect(() => checkPlan(vessel([geodesic()], undefined, {}, 1e-5))).toThrow(
      'Layer 1: the program would exceed 50000000 G-code lines',
    );
  });

  it('a dwell that closes no pattern names the one "auto" would take', () => {
    expect(() => checkPlan(vessel([geodesic({ poleDwellDegrees: 0 })]))).toThrow(
      /^Layer 1: poleDwellDegrees 0\.0° closes no pattern of these circuits: .*; "auto" would dwell [\d.]+°$/,
    );
  });

  it('the check state counts a geodesic layer exactly', () => {
    const definition = vessel([geodesic(), { windType: 'hoop', terminal: false }]);
    expect(initialCheckState().estimate).toBe(3);
    expect(checkPlan(definition).commands).toBe(planToString(definition).gcode.split('\n').length - 1);
  });
});
