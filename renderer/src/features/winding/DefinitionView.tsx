// What a definition plans to (or why it cannot), with the plan options and the two downloads; for
// a G-code file, the simulator's figures.
import type { SimulationSummary } from '#engine/gcode/types.ts';
import type { PlanSummary } from '#engine/plan/types.ts';
import { downloadBlob } from '../../ui/download.ts';
import { formatDuration, formatNumber } from '../../ui/format.ts';
import { AnalysisPlots } from './analysis/AnalysisPlots.tsx';
import type { LoadResult, PlanOptionsState, ProgramError } from './preview/protocol.ts';
import { gcodeName } from './save/save-program.ts';

/** `towpath plan --json`'s body without `output`, as it prints it (one line). */
export function metricsJson(plan: PlanSummary): string {
  return `${JSON.stringify({
    commands: plan.commands,
    timeSeconds: plan.timeSeconds,
    towMeters: plan.towMeters,
    axisFormat: plan.axisFormat,
    layers: plan.layers,
    ...(plan.analysis === undefined ? {} : { analysis: plan.analysis }),
  })}\n`;
}

/** The planner's output name for a definition: `part.wind` → `part.gcode` (as `towpath plan`). */
const LEVEL_TITLES: Record<ProgramError['level'], string> = {
  file: 'The definition is not valid',
  planning: 'The definition cannot be planned',
  simulation: 'The program cannot be simulated',
};

/** Where a schema report points: its `{loc}` lines (the lines after the first not indented by two spaces). */
function locations(error: ProgramError): string[] {
  if (error.level !== 'file') {
    const layer = /^Layer (\d+):/.exec(error.message);
    return layer ? [`layers[${Number(layer[1]) - 1}] (layer ${layer[1]})`] : [];
  }
  const [, ...rest] = error.message.split('\n');
  return rest.filter((line) => line !== '' && !line.startsWith('  '));
}

export function ProgramErrorView({ error }: { error: ProgramError }) {
  const where = locations(error);
  return (
    <div className="program-error" role="alert">
      <h3>{LEVEL_TITLES[error.level]}</h3>
      <pre data-testid="program-error">{error.message}</pre>
      {where.length > 0 && (
        <p>
          Location{where.length > 1 ? 's' : ''}:{' '}
          {where.map((loc, k) => (
            <code key={`${loc}-${k}`}>{loc}</code>
          ))}
        </p>
      )}
    </div>
  );
}

export function PlanOptionsForm({
  options,
  onChange,
  disabled,
}: {
  options: PlanOptionsState;
  onChange: (options: PlanOptionsState) => void;
  disabled: boolean;
}) {
  return (
    <fieldset className="plan-options" disabled={disabled}>
      <legend>Plan options</legend>
      <label>
        Axis format{' '}
        <select
          value={options.axisFormat}
          onChange={(event) =>
            onChange({ ...options, axisFormat: event.target.value === 'xyz' ? 'xyz' : 'xab' })
          }
        >
          <option value="xab">XAB (mandrel A, delivery head B)</option>
          <option value="xyz">XYZ (mandrel Y, delivery head Z)</option>
        </select>
      </label>
      <label>
        <input
          type="checkbox"
          checked={options.verbose}
          onChange={(event) => onChange({ ...options, verbose: event.target.checked })}
        />{' '}
        Verbose comments
      </label>
    </fieldset>
  );
}

export function LayerTable({ plan }: { plan: PlanSummary }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a table wider than a narrow screen scrolls; the keyboard must reach it
    <div className="table-scroll" tabIndex={0}>
      <table aria-label="Layers" className="layers">
        <thead>
          <tr>
            <th scope="col">Layer</th>
            <th scope="col">Type</th>
            <th scope="col">Commands</th>
            <th scope="col">Time</th>
            <th scope="col">Cumulative time</th>
            <th scope="col">Tow (m)</th>
            <th scope="col">Cumulative tow (m)</th>
            <th scope="col">Terminal</th>
          </tr>
        </thead>
        <tbody>
          {plan.layers.map((layer) => (
            <tr
              key={layer.index}
              data-layer={JSON.stringify(layer)}
              title={`${layer.time_s} s, ${layer.tow_m} m`}
            >
              <td>{layer.index}</td>
              <td>{layer.wind_type}</td>
              <td>{formatNumber(layer.commands)}</td>
              <td>{formatDuration(layer.time_s)}</td>
              <td>{formatDuration(layer.cumulative_time_s)}</td>
              <td>{formatNumber(layer.tow_m, 2)}</td>
              <td>{formatNumber(layer.cumulative_tow_m, 2)}</td>
              <td>{layer.terminal ? 'yes' : 'no'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function SimulationFigures({ summary }: { summary: SimulationSummary }) {
  return (
    <dl className="figures" data-testid="simulation" data-summary={JSON.stringify(summary)}>
      <dt>Commands</dt>
      <dd>{formatNumber(summary.commands)}</dd>
      <dt>Moves</dt>
      <dd>{formatNumber(summary.moves)}</dd>
      <dt>Estimated time</dt>
      <dd>{formatDuration(summary.estimated_time_s)}</dd>
      <dt>Distance</dt>
      <dd>{formatNumber(summary.total_distance_mm / 1000, 2)} m</dd>
      <dt>Tow length</dt>
      <dd>{formatNumber(summary.tow_length_mm / 1000, 2)} m</dd>
      <dt>Average feed rate</dt>
      <dd>{formatNumber(summary.average_feed_rate_mmpm, 0)} mm/min</dd>
    </dl>
  );
}

export function DefinitionView({
  result,
  options,
  onOptions,
  onSave,
  busy,
}: {
  result: LoadResult;
  options: PlanOptionsState;
  onOptions: (options: PlanOptionsState) => void;
  /** Saves the planned G-code (native dialog in the desktop app, else a download). */
  onSave: () => void;
  busy: boolean;
}) {
  return (
    <section className="definition" aria-labelledby="definition-title">
      <h2 id="definition-title">{result.name}</h2>
      {result.ok && (
        <p className="definition__timing" data-testid="worker-time" data-ms={result.workerMs.toFixed(1)}>
          {result.plan ? 'Planned' : 'Simulated'} and previewed in {(result.workerMs / 1000).toFixed(2)} s
        </p>
      )}
      {result.kind === 'wind' && (
        <PlanOptionsForm
          options={options}
          onChange={onOptions}
          disabled={busy || (!result.ok && result.error.level === 'file')}
        />
      )}
      {!result.ok && <ProgramErrorView error={result.error} />}
      {result.ok && result.plan && (
        <>
          <p className="definition__summary">
            {formatNumber(result.plan.commands)} lines in {result.plan.layers.length} layer(s); tow{' '}
            {formatNumber(result.plan.towMeters, 2)} m; estimated time{' '}
            {formatDuration(result.plan.timeSeconds)}
          </p>
          <div className="toolbar">
            <button type="button" onClick={onSave}>
              Save G-code
            </button>
            <button
              type="button"
              onClick={() =>
                result.plan &&
                downloadBlob(
                  new Blob([metricsJson(result.plan)], { type: 'application/json' }),
                  `${gcodeName(result.name).slice(0, -6)}.metrics.json`,
                )
              }
            >
              Download metrics
            </button>
          </div>
          <LayerTable plan={result.plan} />
          <AnalysisPlots plan={result.plan} />
        </>
      )}
      {result.ok && result.fittedDiameter !== undefined && (
        <p className="hint" data-testid="fitted-mandrel">
          No Parameters header (not planned by Towpath): shown on a {result.fittedDiameter} mm mandrel fitted
          to the path; the time and tow length assume that diameter.
        </p>
      )}
      {result.ok && !result.plan && <SimulationFigures summary={result.simulation} />}
    </section>
  );
}
