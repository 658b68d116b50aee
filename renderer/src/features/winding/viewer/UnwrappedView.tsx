// React's part of the unwrapped view: it mounts the canvas (drawn in the preview worker where the
// canvas can be handed over, on the page otherwise), turns drag, wheel and keys into pan and zoom,
// and holds the layer scrubber. The view follows the 3D view's timeline in the worker; drawing
// lives in ../scene/unwrapped-canvas.ts.
import { useEffect, useId, useRef, useState } from 'react';
import type { PreviewClient } from '../preview/client.ts';
import type { ViewGeometry } from '../preview/protocol.ts';
import { unwrappedCounts, vertexAngles } from '../scene/unwrap.ts';
import { UnwrappedCanvas, type UnwrappedCommand, type UnwrappedStats } from '../scene/unwrapped-canvas.ts';
import { viewCanvas } from './scene-host.ts';
import './views.css';

export interface UnwrappedViewProps {
  geometry: ViewGeometry;
  client: PreviewClient;
  /** The last good plan while the definition being edited does not plan: drawn faded. */
  dimmed?: boolean;
  /**
   * The timeline position (command). The worker already gives this view the 3D view's timeline;
   * pass it where the page draws the views itself or follows another timeline.
   */
  command?: number;
}

const CANVAS_LABEL =
  'The mandrel surface unwrapped: carriage position across, mandrel angle down. Drag or arrow keys to pan, wheel or + and − to zoom';
const KEY_PAN = 32;
const WHEEL_RATE = 0.0015;

interface Host {
  send(command: UnwrappedCommand): void;
  show(geometry: ViewGeometry): void;
  dispose(): void;
}

function mount(container: HTMLElement, client: PreviewClient, onFrame: (s: UnwrappedStats) => void): Host {
  const { canvas, size } = viewCanvas(container, CANVAS_LABEL);
  let inner: Host;
  if (client.drawsScene) {
    void client.attachUnwrapped(canvas.transferControlToOffscreen(), size(), onFrame);
    inner = {
      send: (command) => void client.unwrappedCommand(command),
      show: () => {},
      dispose: () => void client.detachUnwrapped(),
    };
  } else {
    let view: UnwrappedCanvas | null = null;
    try {
      view = new UnwrappedCanvas(canvas, onFrame);
      view.handle({ op: 'resize', ...size() });
    } catch {
      // No 2D canvas (jsdom): the figures still come from the geometry.
    }
    inner = {
      send: (command) => view?.handle(command),
      show: (geometry) => view?.setGeometry(geometry),
      dispose: () => {},
    };
  }
  const observer = new ResizeObserver(() => inner.send({ op: 'resize', ...size() }));
  observer.observe(canvas);

  let drag: { pointer: number; x: number; y: number } | null = null;
  const onDown = (event: PointerEvent) => {
    drag = { pointer: event.pointerId, x: event.clientX, y: event.clientY };
    canvas.setPointerCapture(event.pointerId);
  };
  const onMove = (event: PointerEvent) => {
    if (!drag || drag.pointer !== event.pointerId) return;
    inner.send({ op: 'pan', dx: event.clientX - drag.x, dy: event.clientY - drag.y });
    drag.x = event.clientX;
    drag.y = event.clientY;
  };
  const onUp = (event: PointerEvent) => {
    if (drag?.pointer === event.pointerId) drag = null;
  };
  const onWheel = (event: WheelEvent) => {
    event.preventDefault();
    const box = canvas.getBoundingClientRect();
    inner.send({
      op: 'zoom',
      factor: Math.exp(-event.deltaY * WHEEL_RATE),
      x: event.clientX - box.left,
      y: event.clientY - box.top,
    });
  };
  const onKey = (event: KeyboardEvent) => {
    const pans: Record<string, [number, number]> = {
      ArrowLeft: [KEY_PAN, 0],
      ArrowRight: [-KEY_PAN, 0],
      ArrowUp: [0, KEY_PAN],
      ArrowDown: [0, -KEY_PAN],
    };
    const pan = pans[event.key];
    if (pan) inner.send({ op: 'pan', dx: pan[0], dy: pan[1] });
    else if (event.key === '+' || event.key === '=') inner.send({ op: 'zoom', factor: 1.25 });
    else if (event.key === '-') inner.send({ op: 'zoom', factor: 0.8 });
    else return;
    event.preventDefault();
  };
  canvas.addEventListener('pointerdown', onDown);
  canvas.addEventListener('pointermove', onMove);
  canvas.addEventListener('pointerup', onUp);
  canvas.addEventListener('pointercancel', onUp);
  canvas.addEventListener('wheel', onWheel, { passive: false });
  canvas.addEventListener('keydown', onKey);
  return {
    send: inner.send,
    show: inner.show,
    dispose: () => {
      observer.disconnect();
      inner.dispose();
      canvas.remove();
    },
  };
}

export function UnwrappedView({ geometry, client, dimmed = false, command }: UnwrappedViewProps) {
  const surfaceRef = useRef<HTMLDivElement>(null);
  const hostRef = useRef<Host | null>(null);
  const [stats, setStats] = useState<UnwrappedStats | null>(null);
  const [upTo, setUpTo] = useState(0);
  const ids = useId();
  const layers = geometry.layers;

  useEffect(() => {
    const surface = surfaceRef.current;
    if (!surface) return;
    const host = mount(surface, client, setStats);
    hostRef.current = host;
    return () => {
      host.dispose();
      hostRef.current = null;
    };
  }, [client]);

  useEffect(() => {
    hostRef.current?.show(geometry);
    if (!geometry.keepCamera) setUpTo(0);
  }, [geometry]);

  useEffect(() => {
    hostRef.current?.send({ op: 'layers', upTo: upTo - 1 });
  }, [upTo]);

  useEffect(() => {
    if (command !== undefined) hostRef.current?.send({ op: 'scrub', command });
  }, [command]);

  // The figures a test compares with the engine: from the worker's frame, or worked out here when
  // nothing draws (no canvas in this environment).
  const [fallback, setFallback] = useState(() => ({ segments: 0, wraps: 0, pieces: 0 }));
  useEffect(() => {
    if (client.drawsScene) return;
    setFallback(unwrappedCounts(vertexAngles(geometry.positions, geometry.vertexCount)));
  }, [client, geometry]);
  const counts = stats ?? fallback;
  const shownLayer = upTo > 0 ? layers[upTo - 1] : undefined;

  return (
    <section
      className={`unwrapped${dimmed ? ' unwrapped--dimmed' : ''}`}
      aria-labelledby={`${ids}-title`}
      data-testid="unwrapped"
      data-segment-count={counts.segments}
      data-wraps={counts.wraps}
      data-pieces={counts.pieces}
      data-drawn-pieces={stats?.drawnPieces ?? 0}
      data-frames={stats?.frames ?? 0}
      data-frame-ms={Math.round(stats?.frameMs ?? 0)}
    >
      <h2 id={`${ids}-title`}>Unwrapped view</h2>
      {dimmed && (
        <p className="unwrapped__stale">
          Showing the last plan that worked: the definition as it is now does not plan.
        </p>
      )}
      <div className="unwrapped__canvas" ref={surfaceRef} />
      <div className="unwrapped__controls">
        <button type="button" onClick={() => hostRef.current?.send({ op: 'fit' })}>
          Fit unwrapped view
        </button>
        {layers.length > 0 && (
          <label className="unwrapped__scrubber">
            Layers up to
            <input
              type="range"
              min={0}
              max={layers.length}
              step={1}
              value={upTo}
              aria-label="Layers up to"
              aria-valuetext={
                shownLayer ? `layer ${shownLayer.index} (${shownLayer.windType})` : 'all layers'
              }
              onChange={(event) => setUpTo(Number(event.target.value))}
            />
            <output>
              {shownLayer ? `layer ${shownLayer.index} (${shownLayer.windType})` : 'all layers'}
            </output>
          </label>
        )}
        <span className="unwrapped__figures" data-testid="unwrapped-figures">
          {counts.segments.toLocaleString('en')} segments, {counts.wraps.toLocaleString('en')} split at
          0°/360°
        </span>
      </div>
    </section>
  );
}
