// Panes on the dashboard's grid (§4): `columns` equal columns within `width`, 64 px rows, 8 px gaps;
// below 640 px of viewport they stack (CSS), by y then x.
import { type CSSProperties, type ReactNode, useEffect, useRef, useState } from 'react';
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
  const element = useRef<HTMLDivElement>(null);
  const scrolls = useScrolls(element);
  return (
    <div
      ref={element}
      className="pane"
      style={paneStyle(pane)}
      data-pane-id={pane.id}
      // A pane whose widgets do not fit scrolls; keyboard users reach and scroll it by focusing it.
      {...(scrolls ? { tabIndex: 0, role: 'group', 'aria-label': pane.title || 'Pane (scrolls)' } : {})}
    >
      {pane.title ? <h2 className="pane__title">{pane.title}</h2> : null}
      {children}
      <div className="pane__widgets">
        {(pane.widgets ?? [])
          .filter((widget) => widget.enabled !== false)
          .map((widget) => (
            <WidgetView key={widget.id} widget={widget} snapshot={snapshot} />
          ))}
      </div>
      <MoreBelow />
    </div>
  );
}

/** Widgets of a pane (the children of its `.pane__widgets`) not wholly in its visible part, below it. */
export function widgetsBelow(pane: HTMLElement): number {
  const visibleBottom = pane.getBoundingClientRect().top + pane.clientTop + pane.clientHeight;
  const widgets = Array.from(pane.querySelector('.pane__widgets')?.children ?? []);
  return widgets.filter((w) => w.getBoundingClientRect().bottom > visibleBottom + 1).length;
}

/**
 * The sign that a pane holds more than it shows, placed last in the pane: scrollbars stay hidden
 * until used on many systems (touch screens, macOS, kiosk browsers), which left widgets out of sight
 * with nothing to say so. It counts them; the
 * pane scrolls as ever (wheel, touch, or the keyboard once focused). Screen readers have every widget
 * already, so it is for the eye only.
 */
export function MoreBelow() {
  const sign = useRef<HTMLParagraphElement>(null);
  const [count, setCount] = useState(0);
  useEffect(() => {
    const pane = sign.current?.parentElement;
    if (!pane || typeof ResizeObserver === 'undefined') return;
    const measure = () => setCount(widgetsBelow(pane));
    // The list's size follows its widgets': added, removed or grown, it is seen resizing.
    const observer = new ResizeObserver(measure);
    observer.observe(pane);
    const list = pane.querySelector('.pane__widgets');
    if (list) observer.observe(list);
    pane.addEventListener('scroll', measure, { passive: true });
    measure();
    return () => {
      observer.disconnect();
      pane.removeEventListener('scroll', measure);
    };
  }, []);
  return (
    <p ref={sign} className="pane__more" hidden={count === 0} aria-hidden="true">
      {count === 1 ? '1 more widget below' : `${count} more widgets below`} ↓
    </p>
  );
}

/** Whether the element's content is taller or wider than its box, kept up to date as either changes. */
function useScrolls(element: { current: HTMLElement | null }): boolean {
  const [scrolls, setScrolls] = useState(false);
  useEffect(() => {
    const box = element.current;
    if (!box || typeof ResizeObserver === 'undefined') return;
    const measure = () =>
      setScrolls(box.scrollHeight > box.clientHeight || box.scrollWidth > box.clientWidth);
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    for (const child of Array.from(box.children)) observer.observe(child);
    measure();
    return () => observer.disconnect();
  }, [element]);
  return scrolls;
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
