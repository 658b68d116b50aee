// The isotensoid dome against the notes' table (vessel-planning.md §2.4) and the closed form of its
// ρ0 → 0 limit, B(3/4, 1/2)/4·R, and every frustum against the netting ODE it solves.
import { describe, expect, it } from 'vitest';
import { isotensoidBossRatio, isotensoidMeridian } from './isotensoid.ts';

describe('geodesic-isotensoid dome', () => {
  const table = [
    { rho0: 0.2, boss: 0.200154, height: 0.61762 },
    { rho0: 0.4, boss: 0.404579, height: 0.66885 },
    { rho0: 0.6, boss: 0.633552, height: 0.75041 },
  ];
  for (const { rho0, boss, height } of table) {
    it(`ρ0 ${rho0}: boss at ${boss} R, height ${height} R`, () => {
      expect(Math.abs((isotensoidBossRatio(rho0) ?? 0) - boss)).toBeLessThan(1e-6);
      const R = 150;
      const meridian = isotensoidMeridian(R, rho0 * R, 4096);
      expect(Math.abs((meridian.z[4096] ?? 0) / R - height)).toBeLessThan(1e-5);
      expect(meridian.r[0]).toBe(R);
      expect(Math.abs((meridian.r[4096] ?? 0) / R - boss)).toBeLessThan(1e-6);
    });
  }

  it('tends to B(3/4, 1/2)/4 = 0.599070117 R as the opening closes', () => {
    for (const rho0 of [0, 1e-6]) {
      expect(Math.abs((isotensoidMeridian(1, rho0, 1024).z[1024] ?? 0) - 0.599070117)).toBeLessThan(1e-9);
    }
  });

  it('solves dζ/dρ = −ρ³ / √((ρ² − ρ0²)/(1 − ρ0²) − ρ⁶) along the chain', () => {
    const rho0 = 0.3;
    const meridian = isotensoidMeridian(1, rho0, 2000);
    // Away from the two ends, where the slope is unbounded, each chord's slope is the ODE's at
    // its middle up to the chord's curvature error.
    for (let i = 200; i < 1800; i++) {
      const za = meridian.z[i] ?? 0;
      const zb = meridian.z[i + 1] ?? 0;
      const ra = meridian.r[i] ?? 0;
      const rb = meridian.r[i + 1] ?? 0;
      const rho = (ra + rb) / 2;
      const ode = -(rho ** 3) / Math.sqrt((rho * rho - rho0 * rho0) / (1 - rho0 * rho0) - rho ** 6);
      expect(Math.abs((zb - za) / (rb - ra) - ode)).toBeLessThan(1e-4 * Math.abs(ode));
    }
    for (let i = 0; i < 2000; i++) {
      expect(meridian.z[i + 1]).toBeGreaterThan(meridian.z[i] ?? 0);
      expect(meridian.r[i + 1]).toBeLessThan(meridian.r[i] ?? 0);
    }
  });

  it('is a netting equilibrium: N1·k1 + N2·k2 = p with N2 = N1·tan²α, sin α = c/r, to 1e-6', () => {
    // The ODE the chain is checked against above, with R = 1 and p = 1: meridional force from the
    // axial load, N1 = p·r / (2·|dz/ds|), hoop force from the fibres' angle, curvatures of z(ρ).
    for (const rho0 of [0.2, 0.4, 0.6]) {
      const boss = isotensoidBossRatio(rho0) ?? 1;
      const F = (rho: number) => (rho * rho - rho0 * rho0) / (1 - rho0 * rho0) - rho ** 6;
      const dF = (rho: number) => (2 * rho) / (1 - rho0 * rho0) - 6 * rho ** 5;
      for (let k = 1; k < 20; k++) {
        const rho = boss + ((1 - boss) * k) / 20;
        const z1 = -(rho ** 3) / Math.sqrt(F(rho));
        const z2 = -3 * rho * rho * F(rho) ** -0.5 + 0.5 * rho ** 3 * F(rho) ** -1.5 * dF(rho);
        const k1 = -z2 / (1 + z1 * z1) ** 1.5;
        const k2 = -z1 / (rho * Math.sqrt(1 + z1 * z1));
        const n1 = (rho * Math.sqrt(1 + z1 * z1)) / (2 * Math.abs(z1));
        const sin = rho0 / rho;
        const n2 = (n1 * sin * sin) / (1 - sin * sin);
        expect(Math.abs(n1 * k1 + n2 * k2 - 1)).toBeLessThan(1e-6);
      }
    }
  });

  it('does not exist when the Clairaut radius is too close to the equator', () => {
    expect(isotensoidBossRatio(0.9)).toBeNull();
    expect(isotensoidBossRatio(1)).toBeNull();
    expect(() => isotensoidMeridian(100, 95, 100)).toThrow(RangeError);
  });
});
