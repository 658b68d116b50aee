// Panes on the dashboard's grid (§4): `columns` equal columns within `width`, 64 px rows, 8 px gaps;
// below 640 px of viewport they stack (CSS), by y then x.
import type { CSSProperties, ReactNode } from 'react';
import type { DashboardDocument, Pane } from './document.ts';
import type { HubSnapshot } from './realtime/hub.ts';
import { useScopedStyle } from './scoped-style.ts';
import { WidgetView } from './widgets/registry.tsx';

const WIDTHS: Record<string, string> = {
  sm: '960px',
  md: '1280px',
  lg: '1600px',
  xl: '1920px',
  full: '100%',
};

export function gridStyle(document: Pick<DashboardDocument, 'columns' | 'width'>): CSSProperties {
  return {
    '--grid-columns': document.columns,
    maxWidth: WIDTHS[document.width] ?? WIDTHS.md,
  } as CSSProperties;
}

export function paneStyle(pane: Pane): CSSProperties {
  const { x, y, w, h } = pane.layout;
  // Custom properties, not grid-column/grid-row: small screens re-place panes in CSS (dashboards.css).
  return { '--pane-x': x + 1, '--pane-y': y + 1, '--pane-w': w, '--pane-h': h } as CSSProperties;
}

/** Reading order, which is also the stacking order on small screens. */
export function readingOrder(panes: readonly Pane[]): Pane[] {
  return [...panes].sort((a, b) => a.layout.y - b.layout.y || a.layout.x - b.layout.x);
}

export function PaneView({
  pane,
  snapshot,
  children,
}: {
  pane: Pane;
  snapshot: HubSnapshot;
  children?: ReactNode;
}) {
  return (
    <div className="pane" style={paneStyle(pane)} data-pane-id={pane.id}>
      {pane.title ? <h2 className="pane__title">{pane.title}</h2> : null}
      {children}
      <div className="pane__widgets">
        {(pane.widgets ?? [])
          .filter((widget) => widget.enabled !== false)
          .map((widget) => (
            <WidgetView key={widget.id} widget={widget} snapshot={snapshot} />
          ))}
      </div>
    </div>
  );
}

export function DashboardGrid({
  document,
  snapshot,
}: {
  document: DashboardDocument;
  snapshot: HubSnapshot;
}) {
  const theme = typeof document.settings.theme === 'string' ? document.settings.theme : 'auto';
  const scope = useScopedStyle(document.settings.style);
  return (
    <div
      className={`dashboard-grid dashboard-theme--${theme}`}
      style={gridStyle(document)}
      data-dashboard-scope={scope}
    >
      {readingOrder(document.panes).map((pane) => (
        <PaneView key={pane.id} pane={pane} snapshot={snapshot} />
      ))}
    </div>
  );
}
