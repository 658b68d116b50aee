// The editor's grid: panes can be selected, dragged by their handle and resized by their corner with
// a pointer, or moved and resized with the arrow keys (Shift+arrows resize) and the buttons on each
// pane. A change that would leave the grid or overlap another pane is not made.
import { type KeyboardEvent, type PointerEvent, useRef } from 'react';
import { gridStyle, MoreBelow, paneStyle, readingOrder } from '../DashboardGrid.tsx';
import { type DashboardDocument, fits, type Layout, type Pane, WIDGET_LABELS } from '../document.ts';
import type { HubSnapshot } from '../realtime/hub.ts';
import { WidgetView } from '../widgets/registry.tsx';

const ROW_PX = 64;
const GAP_PX = 8;

export interface EditorGridProps {
  document: DashboardDocument;
  snapshot: HubSnapshot;
  selectedPaneId: string | null;
  onSelectPane: (paneId: string) => void;
  onPanesChange: (panes: Pane[]) => void;
  onEditWidget: (paneId: string, widgetId: string) => void;
}

type Change = Partial<Layout>;

/** The buttons on each pane: the pointer-free way to move, resize and remove it. */
function paneTools(pane: Pane, name: string): { symbol: string; label: string; change?: Change }[] {
  const { x, y, w, h } = pane.layout;
  return [
    { symbol: '←', label: `Move pane ${name} left`, change: { x: x - 1 } },
    { symbol: '→', label: `Move pane ${name} right`, change: { x: x + 1 } },
    { symbol: '↑', label: `Move pane ${name} up`, change: { y: y - 1 } },
    { symbol: '↓', label: `Move pane ${name} down`, change: { y: y + 1 } },
    { symbol: '⇤', label: `Make pane ${name} narrower`, change: { w: w - 1 } },
    { symbol: '⇥', label: `Make pane ${name} wider`, change: { w: w + 1 } },
    { symbol: '⤒', label: `Make pane ${name} shorter`, change: { h: h - 1 } },
    { symbol: '⤓', label: `Make pane ${name} taller`, change: { h: h + 1 } },
    { symbol: '✕', label: `Remove pane ${name}` },
  ];
}

export function paneName(pane: Pane, index: number): string {
  return pane.title?.trim() || `Pane ${index + 1}`;
}

export function EditorGrid({
  document,
  snapshot,
  selectedPaneId,
  onSelectPane,
  onPanesChange,
  onEditWidget,
}: EditorGridProps) {
  const grid = useRef<HTMLDivElement>(null);
  const drag = useRef<{
    paneId: string;
    mode: 'move' | 'resize';
    x: number;
    y: number;
    start: Layout;
  } | null>(null);

  const apply = (paneId: string, layout: Layout): boolean => {
    if (!fits(document.panes, document.columns, paneId, layout)) return false;
    onPanesChange(document.panes.map((p) => (p.id === paneId ? { ...p, layout } : p)));
    return true;
  };
  const nudge = (pane: Pane, change: Change) => apply(pane.id, { ...pane.layout, ...change });
  const update = (pane: Pane, next: Partial<Pane>) =>
    onPanesChange(document.panes.map((p) => (p.id === pane.id ? { ...p, ...next } : p)));

  const onKeyDown = (pane: Pane) => (event: KeyboardEvent) => {
    const { x, y, w, h } = pane.layout;
    const moves: Record<string, Change> = event.shiftKey
      ? { ArrowLeft: { w: w - 1 }, ArrowRight: { w: w + 1 }, ArrowUp: { h: h - 1 }, ArrowDown: { h: h + 1 } }
      : { ArrowLeft: { x: x - 1 }, ArrowRight: { x: x + 1 }, ArrowUp: { y: y - 1 }, ArrowDown: { y: y + 1 } };
    const change = moves[event.key];
    if (change) {
      event.preventDefault();
      nudge(pane, change);
    } else if (event.key === 'Delete') {
      event.preventDefault();
      onPanesChange(document.panes.filter((p) => p.id !== pane.id));
    }
  };

  const cellSize = () => {
    const width = grid.current?.clientWidth ?? 1;
    return { cw: (width + GAP_PX) / document.columns, ch: ROW_PX + GAP_PX };
  };
  const startDrag = (pane: Pane, mode: 'move' | 'resize') => (event: PointerEvent) => {
    event.preventDefault();
    (event.currentTarget as Element).setPointerCapture?.(event.pointerId);
    drag.current = { paneId: pane.id, mode, x: event.clientX, y: event.clientY, start: pane.layout };
    onSelectPane(pane.id);
  };
  const moveDrag = (event: PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    const { cw, ch } = cellSize();
    const dx = Math.round((event.clientX - d.x) / cw);
    const dy = Math.round((event.clientY - d.y) / ch);
    const next =
      d.mode === 'move'
        ? { ...d.start, x: d.start.x + dx, y: d.start.y + dy }
        : { ...d.start, w: d.start.w + dx, h: d.start.h + dy };
    const pane = document.panes.find((p) => p.id === d.paneId);
    if (
      pane &&
      (next.x !== pane.layout.x ||
        next.y !== pane.layout.y ||
        next.w !== pane.layout.w ||
        next.h !== pane.layout.h)
    )
      apply(d.paneId, next);
  };
  const endDrag = () => {
    drag.current = null;
  };

  return (
    <div
      ref={grid}
      className="dashboard-grid dashboard-grid--editing"
      style={gridStyle(document)}
      onPointerMove={moveDrag}
      onPointerUp={endDrag}
      onPointerCancel={endDrag}
    >
      {readingOrder(document.panes).map((pane) => {
        const index = document.panes.indexOf(pane);
        const name = paneName(pane, index);
        const selected = pane.id === selectedPaneId;
        const widgets = pane.widgets ?? [];
        return (
          // biome-ignore lint/a11y/useSemanticElements: a fieldset's overflowing widgets did not scroll (Chromium), so a pane holding more than it shows hid them
          <div
            role="group"
            key={pane.id}
            aria-label={`Pane ${name}`}
            className={`pane pane--editing${selected ? ' pane--selected' : ''}`}
            style={paneStyle(pane)}
            data-pane-id={pane.id}
            onFocus={() => onSelectPane(pane.id)}
            onPointerDown={() => onSelectPane(pane.id)}
          >
            <div className="pane__bar">
              <button
                type="button"
                className="pane__handle"
                aria-label={`Move or resize pane ${name}`}
                aria-describedby="editor-grid-keys"
                title="Drag to move; arrow keys move, Shift+arrows resize"
                onPointerDown={startDrag(pane, 'move')}
                onKeyDown={onKeyDown(pane)}
              >
                ⠿
              </button>
              <input
                className="pane__title-input"
                aria-label={`Title of pane ${name}`}
                value={pane.title ?? ''}
                placeholder="Pane title"
                maxLength={200}
                onChange={(e) => update(pane, { title: e.target.value })}
              />
              <span className="pane__size">
                {pane.layout.w}×{pane.layout.h} at {pane.layout.x},{pane.layout.y}
              </span>
            </div>
            <div className="pane__tools">
              {paneTools(pane, name).map((tool) => (
                <button
                  key={tool.label}
                  type="button"
                  title={tool.label}
                  onClick={() =>
                    tool.change
                      ? nudge(pane, tool.change)
                      : onPanesChange(document.panes.filter((p) => p.id !== pane.id))
                  }
                >
                  <span aria-hidden="true">{tool.symbol}</span>
                  <span className="visually-hidden">{tool.label}</span>
                </button>
              ))}
            </div>
            <div className="pane__widgets">
              {widgets.map((widget, i) => {
                const label = widget.title?.trim() || WIDGET_LABELS[widget.type] || widget.type;
                const setWidgets = (next: typeof widgets) => update(pane, { widgets: next });
                return (
                  <div key={widget.id} className="pane__widget">
                    <WidgetView widget={widget} snapshot={snapshot} />
                    <div className="pane__widget-tools">
                      <button
                        type="button"
                        className="button"
                        onClick={() => onEditWidget(pane.id, widget.id)}
                      >
                        Edit widget {label}
                      </button>
                      <button
                        type="button"
                        className="button"
                        aria-label={`Move widget ${label} up`}
                        disabled={i === 0}
                        onClick={() =>
                          setWidgets(
                            widgets.map((w, j) =>
                              j === i - 1 ? widget : j === i ? (widgets[i - 1] as typeof widget) : w,
                            ),
                          )
                        }
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        className="button"
                        aria-label={`Remove widget ${label}`}
                        onClick={() => setWidgets(widgets.filter((w) => w.id !== widget.id))}
                      >
                        ✕
                      </button>
                    </div>
                  </div>
                );
              })}
            </div>
            <span
              className="pane__resize"
              aria-hidden="true"
              title="Drag to resize"
              onPointerDown={startDrag(pane, 'resize')}
            />
            <MoreBelow />
          </div>
        );
      })}
      <p id="editor-grid-keys" className="visually-hidden">
        On a pane's handle, the arrow keys move the pane; Shift with the arrow keys resizes it; Delete removes
        it.
      </p>
    </div>
  );
}
