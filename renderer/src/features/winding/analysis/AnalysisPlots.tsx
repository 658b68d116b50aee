// What a vessel's plan says along the part, beside the layer table: the fibre angle of each layer
// and the laminate's thickness as it builds up, against the axial position, and how each layer's
// circuits cover the equator. The planner (in the preview worker) computed the series; the page
// only draws a few hundred points per layer as SVG.
import type { PlanAnalysis } from '#engine/plan/analysis.ts';
import type { PlanSummary } from '#engine/plan/types.ts';
import { formatNumber } from '../../../ui/format.ts';
import { LAYER_COLOURS } from '../scene/colours.ts';
import { extent, linearScale, linePath, niceTicks } from './plot.ts';
import './analysis.css';

// A viewBox about as wide as the figure is drawn, so 12-unit text reads as 12 px.
const WIDTH = 400;
const HEIGHT = 240;
const MARGIN = { left: 54, right: 10, top: 12, bottom: 42 };

/** The 3D view's colour of layer `index` (1-based), so a layer reads the same in both. */
const colourOf = (index: number) => LAYER_COLOURS[(index - 1) % LAYER_COLOURS.length] ?? '#000';

interface Series {
  index: number;
  label: string;
  values: readonly (number | null)[];
}

function LinePlot({
  id,
  title,
  yLabel,
  z,
  series,
  yDomain,
}: {
  id: string;
  title: string;
  yLabel: string;
  z: readonly number[];
  series: Series[];
  yDomain: [number, number];
}) {
  const x = linearScale(z[0] ?? 0, z[z.length - 1] ?? 1, MARGIN.left, WIDTH - MARGIN.right);
  const y = linearScale(yDomain[0], yDomain[1], HEIGHT - MARGIN.bottom, MARGIN.top);
  const xTicks = niceTicks(z[0] ?? 0, z[z.length - 1] ?? 1, 6);
  const yTicks = niceTicks(yDomain[0], yDomain[1], 5);
  const captionId = `${id}-caption`;
  const bottom = HEIGHT - MARGIN.bottom;
  return (
    <figure className="analysis-plot" aria-labelledby={captionId} data-points={z.length}>
      <figcaption id={captionId}>{title}</figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${yLabel} against position along the axis z (mm), ${series.length} layer(s)`}
      >
        <g className="analysis-plot__axes">
          <line x1={MARGIN.left} y1={bottom} x2={WIDTH - MARGIN.right} y2={bottom} />
          <line x1={MARGIN.left} y1={MARGIN.top} x2={MARGIN.left} y2={bottom} />
          {xTicks.map((t) => (
            <g key={`x${t}`}>
              <line x1={x(t)} y1={bottom} x2={x(t)} y2={bottom + 4} />
              <text x={x(t)} y={bottom + 15} textAnchor="middle">
                {formatNumber(t)}
              </text>
            </g>
          ))}
          {yTicks.map((t) => (
            <g key={`y${t}`}>
              <line x1={MARGIN.left - 4} y1={y(t)} x2={MARGIN.left} y2={y(t)} />
              <line
                className="analysis-plot__grid"
                x1={MARGIN.left}
                y1={y(t)}
                x2={WIDTH - MARGIN.right}
                y2={y(t)}
              />
              <text x={MARGIN.left - 7} y={y(t) + 4} textAnchor="end">
                {formatNumber(t, t !== 0 && Math.abs(t) < 1 ? 2 : 0)}
              </text>
            </g>
          ))}
          <text x={(MARGIN.left + WIDTH - MARGIN.right) / 2} y={HEIGHT - 6} textAnchor="middle">
            Position along the axis z (mm)
          </text>
          <text transform={`translate(14 ${(MARGIN.top + bottom) / 2}) rotate(-90)`} textAnchor="middle">
            {yLabel}
          </text>
        </g>
        {series.map((s) => (
          <path
            key={s.index}
            className="analysis-plot__line"
            d={linePath(z, s.values, x, y)}
            stroke={colourOf(s.index)}
            data-layer={s.index}
          >
            <title>{s.label}</title>
          </path>
        ))}
      </svg>
      <ul className="analysis-plot__legend">
        {series.map((s) => (
          <li key={s.index}>
            <span
              className="analysis-plot__swatch"
              style={{ background: colourOf(s.index) }}
              aria-hidden="true"
            />
            {s.label}
          </li>
        ))}
      </ul>
    </figure>
  );
}

function CoverageTable({ analysis }: { analysis: PlanAnalysis }) {
  const covered = analysis.layers.filter((layer) => layer.coverage !== null);
  if (covered.length === 0) return null;
  return (
    <table className="layers analysis-coverage" aria-label="Coverage">
      <thead>
        <tr>
          <th scope="col">Layer</th>
          <th scope="col">Circuits</th>
          <th scope="col">Advance</th>
          <th scope="col">Overlap</th>
          <th scope="col">Dwell</th>
        </tr>
      </thead>
      <tbody>
        {covered.map((layer) => (
          <tr key={layer.index}>
            <td>
              {layer.index} ({layer.wind_type})
            </td>
            <td>{layer.coverage?.slots}</td>
            <td>{layer.coverage?.advance}</td>
            <td>{formatNumber(layer.coverage?.overlap_percent ?? 0, 2)} %</td>
            <td>{formatNumber(layer.coverage?.dwell_deg ?? 0, 3)}°</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The plots of a vessel's plan; nothing for a plan without an analysis (a cylinder, a cone). */
export function AnalysisPlots({ plan }: { plan: PlanSummary }) {
  const analysis = plan.analysis;
  if (analysis === undefined) return null;
  const label = (index: number, type: string) => `Layer ${index} (${type})`;
  const laying = analysis.layers.filter((layer) => layer.thickness_mm.some((t) => t > 0));
  const angles: Series[] = laying.map((layer) => ({
    index: layer.index,
    label: label(layer.index, layer.wind_type),
    values: layer.angle_deg,
  }));
  // Each line is the top of the laminate once that layer is on: the last one is the whole of it.
  const thickness: Series[] = laying.map((layer) => ({
    index: layer.index,
    label: `${label(layer.index, layer.wind_type)} and below`,
    values: layer.cumulative_thickness_mm,
  }));
  const [, thickest] = extent(thickness.map((s) => s.values));
  return (
    <section className="analysis" aria-label="Analysis along the part">
      <LinePlot
        id="analysis-angle"
        title="Fibre angle along the part"
        yLabel="Fibre angle from the axis (°)"
        z={analysis.z_mm}
        series={angles}
        yDomain={[0, 90]}
      />
      <LinePlot
        id="analysis-thickness"
        title="Thickness along the part"
        yLabel="Thickness (mm)"
        z={analysis.z_mm}
        series={thickness}
        yDomain={[0, thickest > 0 ? thickest * 1.05 : 1]}
      />
      <CoverageTable analysis={analysis} />
    </section>
  );
}
