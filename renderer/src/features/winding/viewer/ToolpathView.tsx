// React's part of the 3D view: it mounts the scene (drawn in the preview worker where the canvas can
// be handed over, see scene-host.ts) and holds the controls around it (views, timeline, play, speed,
// layers, readout). Drawing lives in ../scene.
import { useEffect, useId, useRef, useState } from 'react';
import { formatDuration } from '../../../ui/format.ts';
import type { PreviewClient } from '../preview/client.ts';
import type { CommandLine, ViewGeometry } from '../preview/protocol.ts';
import { layerColour } from '../scene/colours.ts';
import { commandAtTime, lastVertexAtOrBefore, timeAt } from '../scene/timeline.ts';
import type { PathStyle, SceneStats, ViewDirection } from '../scene/toolpath-scene.ts';
import { mountScene, type SceneHost } from './scene-host.ts';
import './views.css';

const SPEEDS = [1, 10, 60, 600] as const;
/**
 * Above this many path vertices the view opens in line mode: bands of a million segments take
 * seconds a frame in software GL. The toggle switches either way.
 */
export const BAND_VERTEX_LIMIT = 250_000;

export interface ToolpathViewProps {
  geometry: ViewGeometry;
  client: PreviewClient;
  /** While the machine streams this program: the last acknowledged command drives the view. */
  machineLine?: number | null;
  /** The definition being edited does not plan: this is the last good plan, shown faded. */
  dimmed?: boolean;
  /** Hears the timeline's position (command), so another view can follow the same timeline. */
  onTimeline?: (command: number) => void;
}

export function ToolpathView({
  geometry,
  client,
  machineLine = null,
  dimmed = false,
  onTimeline,
}: ToolpathViewProps) {
  const surfaceRef = useRef<HTMLDivElement>(null);
  const sceneRef = useRef<SceneHost | null>(null);
  const [stats, setStats] = useState<SceneStats>({
    drawnVertices: 0,
    doneVertices: 0,
    frames: 0,
    pathUploads: 0,
    frameMs: 0,
  });
  const [sceneProblem, setSceneProblem] = useState<string | null>(null);
  const [scrub, setScrub] = useState(geometry.commandCount);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<number>(60);
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set());
  const [line, setLine] = useState<CommandLine | null>(null);
  const [style, setStyle] = useState<PathStyle>(geometry.vertexCount > BAND_VERTEX_LIMIT ? 'lines' : 'bands');
  const ids = useId();

  const shown = machineLine ?? scrub;
  const shownRef = useRef(shown);
  const machineLineRef = useRef(machineLine);
  machineLineRef.current = machineLine;
  shownRef.current = shown;
  const styleRef = useRef(style);
  styleRef.current = style;

  useEffect(() => {
    const surface = surfaceRef.current;
    if (!surface) return;
    // A view that mounts mid-job starts at the machine's place, not with the whole path done.
    const scene = mountScene(surface, client, { frame: setStats, error: setSceneProblem }, shownRef.current);
    sceneRef.current = scene;
    scene.send({ op: 'style', style: styleRef.current });
    return () => {
      scene.dispose();
      sceneRef.current = null;
    };
  }, [client]);

  useEffect(() => {
    sceneRef.current?.showGeometry(geometry);
    setScrub(geometry.commandCount);
    // A new geometry is drawn all done; while the machine drives the timeline, its place stands.
    if (machineLineRef.current !== null)
      sceneRef.current?.send({ op: 'scrub', command: machineLineRef.current });
    setPlaying(false);
    // An edit of the same part keeps the layers the user hid; another part shows them all.
    if (!geometry.keepCamera) setHidden(new Set());
  }, [geometry]);

  useEffect(() => {
    sceneRef.current?.send({ op: 'scrub', command: shown });
    onTimeline?.(shown);
  }, [shown, onTimeline]);

  useEffect(() => {
    sceneRef.current?.send({ op: 'style', style });
  }, [style]);

  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      client.line(shown).then(
        (answer) => live && setLine(answer),
        () => live && setLine(null),
      );
    }, 50);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [client, shown]);

  // Play: machine time runs at `speed` × real time from the scrub position.
  useEffect(() => {
    if (!playing) return;
    let frame = 0;
    let last = performance.now();
    let t = timeAt(geometry, scrub >= geometry.commandCount ? 0 : scrub);
    const end = geometry.elapsed[geometry.vertexCount - 1] ?? 0;
    const step = (now: number) => {
      t += ((now - last) / 1000) * speed;
      last = now;
      if (t >= end) {
        setScrub(geometry.commandCount);
        setPlaying(false);
        return;
      }
      setScrub(commandAtTime(geometry, t));
      frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
    // The start position is read once when play starts; scrub changes made by playing must not restart it.
  }, [playing, speed, geometry]);

  const view = (direction: ViewDirection) => sceneRef.current?.send({ op: 'view', direction });
  const zoom = (factor: number) => sceneRef.current?.send({ op: 'zoom', factor });
  const toggleLayer = (k: number, visible: boolean) => {
    sceneRef.current?.send({ op: 'layer', layer: k, visible });
    setHidden((prev) => {
      const next = new Set(prev);
      if (visible) next.delete(k);
      else next.add(k);
      return next;
    });
  };

  const vertex = lastVertexAtOrBefore(geometry.commandIndex, shown);
  const p = geometry.positions;
  const x = p[3 * vertex] ?? 0;
  const angle = ((Math.atan2(p[3 * vertex + 2] ?? 0, p[3 * vertex + 1] ?? 0) * 180) / Math.PI + 360) % 360;

  return (
    <section className={`viewer${dimmed ? ' viewer--dimmed' : ''}`} aria-labelledby={`${ids}-title`}>
      <h2 id={`${ids}-title`} className="visually-hidden">
        Toolpath
      </h2>
      <div className="toolbar" role="toolbar" aria-label="View">
        <button type="button" onClick={() => sceneRef.current?.send({ op: 'fit' })}>
          Fit
        </button>
        <button type="button" onClick={() => view('side')}>
          Side view
        </button>
        <button type="button" onClick={() => view('end')}>
          End view
        </button>
        <button type="button" onClick={() => view('isometric')}>
          Isometric view
        </button>
        <button type="button" onClick={() => zoom(0.8)}>
          Zoom in
        </button>
        <button type="button" onClick={() => zoom(1.25)}>
          Zoom out
        </button>
      </div>
      {dimmed && (
        <p className="viewer__stale" data-testid="view-stale">
          Showing the last plan that worked: the definition as it is now does not plan.
        </p>
      )}
      <section
        className="viewer__canvas"
        aria-label="3D view"
        data-testid="view3d"
        data-drawn-vertices={stats.drawnVertices}
        data-done-vertices={stats.doneVertices}
        data-vertex-count={geometry.vertexCount}
        data-frames={stats.frames}
        data-path-uploads={stats.pathUploads}
        data-frame-ms={Math.round(stats.frameMs)}
        data-drawn-by={client.drawsScene ? 'worker' : 'page'}
        data-style={style}
        data-dimmed={dimmed}
      >
        {/* The canvas is made by mountScene: one per mount, as a canvas can be handed to a worker only once. */}
        <div ref={surfaceRef} className="viewer__surface" />
      </section>
      {sceneProblem && (
        <p role="alert" className="program-error">
          The 3D view cannot be drawn here: {sceneProblem}
        </p>
      )}
      <div className="timeline">
        <button type="button" onClick={() => setPlaying((p) => !p)} disabled={machineLine !== null}>
          {playing ? 'Pause' : 'Play'}
        </button>
        <label className="timeline__slider">
          <span className="visually-hidden">Timeline</span>
          <input
            type="range"
            aria-label="Timeline"
            min={0}
            max={geometry.commandCount}
            step={1}
            value={shown}
            disabled={machineLine !== null}
            aria-valuetext={`command ${shown} of ${geometry.commandCount}`}
            onChange={(event) => {
              setPlaying(false);
              setScrub(Number(event.target.value));
            }}
          />
        </label>
        <label className="viewer__style">
          <input
            type="checkbox"
            checked={style === 'bands'}
            onChange={(event) => setStyle(event.target.checked ? 'bands' : 'lines')}
          />{' '}
          Tow as bands
        </label>
        <label>
          Speed{' '}
          <select value={speed} onChange={(event) => setSpeed(Number(event.target.value))}>
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s}×
              </option>
            ))}
          </select>
        </label>
      </div>
      <dl className="readout" data-testid="readout">
        <dt>Line</dt>
        <dd>{line ? line.sourceLine : '–'}</dd>
        <dt>G-code</dt>
        <dd>
          <code>{line ? line.text : '–'}</code>
        </dd>
        <dt>Elapsed</dt>
        <dd>{formatDuration(geometry.elapsed[vertex] ?? 0)}</dd>
        <dt>Carriage</dt>
        <dd>{x.toFixed(2)} mm</dd>
        <dt>Mandrel angle</dt>
        <dd>{angle.toFixed(1)}°</dd>
      </dl>
      {geometry.layers.length > 0 && (
        <fieldset className="layer-toggles">
          <legend>Layers shown</legend>
          {geometry.layers.map((layer, k) => (
            <label key={`${layer.index}-${layer.firstVertex}`}>
              <input
                type="checkbox"
                checked={!hidden.has(k)}
                onChange={(event) => toggleLayer(k, event.target.checked)}
              />
              <span className="swatch" style={{ background: layerColour(k) }} aria-hidden="true" />
              Layer {layer.index} ({layer.windType})
            </label>
          ))}
        </fieldset>
      )}
    </section>
  );
}
