// The unwrapped view: the mandrel's surface laid flat (carriage position across, mandrel angle
// down), each layer's tow at its width. Drawing comes in the preview worker like the 3D view.
import type { PreviewClient } from '../preview/client.ts';
import type { ViewGeometry } from '../preview/protocol.ts';

export interface UnwrappedViewProps {
  geometry: ViewGeometry;
  client: PreviewClient;
  /** The last good plan while the definition being edited does not plan: drawn faded. */
  dimmed?: boolean;
  /** The timeline position (command) shared with the 3D view; the whole program when absent. */
  command?: number;
}

export function UnwrappedView({ geometry, dimmed = false }: UnwrappedViewProps) {
  return (
    <section
      className={`unwrapped${dimmed ? ' unwrapped--dimmed' : ''}`}
      aria-label="Unwrapped view"
      data-testid="unwrapped"
      data-segment-count={Math.max(geometry.vertexCount - 1, 0)}
    />
  );
}
